import Glibc
import TailorLoop

/// The open end of a streamed response: each write sends one chunk of the
/// chunked body (RFC 9112 §7.1), made of pieces that are shared, not copied.
///
/// Confined to the connection's loop, like the connection itself: it is handed
/// to the stream's closure once, and used there and by jobs on the same loop.
public final class ResponseStream: @unchecked Sendable {
    let socket: SocketConnection
    let writeTimeout: Double
    /// HTTP/1.1 frames each write as a chunk; HTTP/1.0 sends the bytes as they are.
    let chunked: Bool
    private var vectors: UnsafeMutableBufferPointer<iovec>
    /// The chunk's size in hex and CRLF: at most 16 digits and 2 bytes.
    private let sizeLine = UnsafeMutableRawBufferPointer.allocate(byteCount: 18, alignment: 1)
    private static let lineEnd = SharedBytes("\r\n")
    /// A chunk the socket did not take whole: its vectors from `unsentStart` on
    /// still point at bytes to send, and `unsentPieces` keeps those bytes alive.
    private var unsentStart = 0
    private var unsentEnd = 0
    private var unsentPieces: [SharedBytes] = []

    init(socket: SocketConnection, writeTimeout: Double, chunked: Bool) {
        self.socket = socket
        self.writeTimeout = writeTimeout
        self.chunked = chunked
        vectors = .allocate(capacity: 8)
    }

    deinit {
        vectors.deallocate()
        sizeLine.deallocate()
    }

    /// The loop the stream runs on.
    public var loop: EventLoop { socket.loop }

    /// Fails the write that waits for room, if any: the stream is to end now.
    /// On the stream's loop.
    public func abort() {
        socket.interrupt(.peerClosed)
    }

    /// Whether part of an earlier chunk still waits for room in the socket.
    public var hasUnsentBytes: Bool { unsentStart < unsentEnd }

    /// Sends what is left of an earlier chunk, then `pieces` as one chunk; throws
    /// when the peer is gone or stopped reading for longer than the write timeout.
    public func write(_ pieces: [SharedBytes]) async throws {
        try await finishUnsent()
        if try writeWithoutWaiting(pieces) { return }
        try await finishUnsent()
    }

    /// Sends `pieces` as one chunk as far as the socket takes it now: true when
    /// all of it went out. What did not is kept, and sent first by the next
    /// `write`. Only for a stream with nothing unsent.
    public func writeWithoutWaiting(_ pieces: [SharedBytes]) throws -> Bool {
        precondition(!hasUnsentBytes, "a chunk would overtake the rest of an earlier one")
        let total = pieces.reduce(0) { $0 + $1.count }
        guard total > 0 else { return true }
        if vectors.count < pieces.count + 2 {
            vectors.deallocate()
            vectors = .allocate(capacity: pieces.count * 2 + 2)
        }
        let sizeCount = chunked ? writeSizeLine(total) : 0
        vectors[0] = iovec(iov_base: sizeLine.baseAddress, iov_len: sizeCount)
        for (index, piece) in pieces.enumerated() {
            vectors[index + 1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.bytes.baseAddress), iov_len: piece.count)
        }
        vectors[pieces.count + 1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: Self.lineEnd.bytes.baseAddress), iov_len: chunked ? 2 : 0)
        let count = pieces.count + 2
        let sent = try withExtendedLifetime(pieces) {
            try socket.writeAvailable(UnsafeMutableBufferPointer(rebasing: vectors[0..<count]))
        }
        guard sent < count else { return true }
        unsentStart = sent
        unsentEnd = count
        unsentPieces = pieces
        return false
    }

    /// Waits until the socket has taken the rest of an earlier chunk.
    private func finishUnsent() async throws {
        guard hasUnsentBytes else { return }
        socket.deadline = MonotonicClock.after(seconds: writeTimeout)
        defer { socket.deadline = 0 }
        try await socket.write(UnsafeMutableBufferPointer(rebasing: vectors[unsentStart..<unsentEnd]))
        unsentStart = 0
        unsentEnd = 0
        unsentPieces = []
    }

    /// Writes `count` in hex and CRLF into `sizeLine`; returns its length.
    private func writeSizeLine(_ count: Int) -> Int {
        let digits = max(1, (Int.bitWidth - count.leadingZeroBitCount + 3) / 4)
        for place in 0..<digits {
            let nibble = (count >> (4 * (digits - 1 - place))) & 0xF
            sizeLine[place] = nibble < 10 ? UInt8(ascii: "0") + UInt8(nibble) : UInt8(ascii: "a") + UInt8(nibble - 10)
        }
        sizeLine[digits] = UInt8(ascii: "\r")
        sizeLine[digits + 1] = UInt8(ascii: "\n")
        return digits + 2
    }

    /// Calls `handler` on the loop when the peer hangs up (at most once).
    public func onPeerClosed(_ handler: @escaping () -> Void) {
        socket.peerClosedHandler = handler
    }
}
