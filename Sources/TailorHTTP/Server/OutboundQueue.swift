import Glibc
import TailorLoop

/// Responses waiting to be written: their heads packed in one buffer and their
/// bodies referenced, not copied. One `writev` sends all of them, so a head and
/// its body leave in one segment and pipelined answers leave together.
///
/// Not copyable: it owns its memory, which goes with it.
struct OutboundQueue: ~Copyable {
    private var heads: UnsafeMutableRawBufferPointer
    private var headsUsed = 0
    private var entries: [(headStart: Int, headEnd: Int, body: SharedBytes?)] = []
    private var vectors: UnsafeMutableBufferPointer<iovec>
    /// Reused for every head, so writing one allocates nothing once warm.
    private var scratch: [UInt8] = []

    init() {
        heads = .allocate(byteCount: 1024, alignment: 16)
        vectors = .allocate(capacity: 16)
    }

    deinit {
        heads.deallocate()
        vectors.deallocate()
    }

    var isEmpty: Bool { entries.isEmpty }

    /// Bytes queued, heads and bodies.
    private(set) var pendingBytes = 0

    /// Appends one response; its head is written by `writeHead`.
    mutating func append(body: SharedBytes?, writeHead: (inout HeadWriter) -> Void) {
        // The scratch buffer moves into the writer and back, never shared
        // meanwhile: reserving it or emptying it then copies nothing.
        var writer = HeadWriter(bytes: takeScratch())
        writeHead(&writer)
        let headStart = headsUsed
        let headCount = writer.bytes.count
        reserve(headCount)
        writer.bytes.withUnsafeBytes { heads.baseAddress!.advanced(by: headsUsed).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        headsUsed += headCount
        writer.bytes.removeAll(keepingCapacity: true)
        scratch = writer.bytes
        entries.append((headStart, headsUsed, body.flatMap { $0.count > 0 ? $0 : nil }))
        pendingBytes += headCount + (body?.count ?? 0)
    }

    private mutating func takeScratch() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &scratch)
        return taken
    }

    /// Writes everything queued and empties the queue.
    mutating func flush(to socket: SocketConnection) async throws {
        guard !entries.isEmpty else { return }
        let needed = entries.count * 2
        if vectors.count < needed {
            vectors.deallocate()
            vectors = .allocate(capacity: max(needed, vectors.count * 2))
        }
        var count = 0
        for entry in entries {
            vectors[count] = iovec(iov_base: heads.baseAddress! + entry.headStart, iov_len: entry.headEnd - entry.headStart)
            count += 1
            if let body = entry.body {
                vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: body.bytes.baseAddress), iov_len: body.count)
                count += 1
            }
        }
        // `entries` keeps the bodies alive until the write is done.
        try await socket.write(UnsafeMutableBufferPointer(rebasing: vectors[0..<count]))
        discardAll()
    }

    /// Forgets everything queued, written or not: the connection it was for has ended.
    mutating func discardAll() {
        entries.removeAll(keepingCapacity: true)
        headsUsed = 0
        pendingBytes = 0
    }

    private mutating func reserve(_ extra: Int) {
        guard heads.count - headsUsed < extra else { return }
        var capacity = heads.count * 2
        while capacity - headsUsed < extra { capacity *= 2 }
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        grown.baseAddress!.copyMemory(from: heads.baseAddress!, byteCount: headsUsed)
        heads.deallocate()
        heads = grown
    }
}

/// Collects a response head's bytes.
struct HeadWriter {
    var bytes: [UInt8]

    fileprivate init(bytes: [UInt8]) {
        self.bytes = bytes
        self.bytes.reserveCapacity(256)
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func append(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    mutating func appendDecimal(_ value: Int) {
        if value >= 10 { appendDecimal(value / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
