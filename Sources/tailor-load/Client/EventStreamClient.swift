import TailorLoop

/// One Server-Sent Events stream, read as a browser would: the chunked body
/// decoded, then events split at blank lines into `event`, `id` and `data`.
///
/// `@unchecked Sendable`: read only by tasks on its socket's loop.
final class EventStreamClient: @unchecked Sendable {
    struct Event {
        var name = "message"
        var id: String?
        var data: ArraySlice<UInt8> = []
    }

    private let socket: SocketConnection
    private var raw: [UInt8] = []       // bytes read, not yet de-chunked
    private var lines: [UInt8] = []     // de-chunked event-stream text, not yet parsed
    private var chunkLeft = 0           // bytes still to come in the current chunk
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    private(set) var isClosed = false

    /// Connects and sends the request; `open()` then reads the answer's head.
    init(target: LoadTarget, loop: EventLoop, token: String, topics: String) throws {
        socket = try loop.connect(host: target.host, port: target.port, from: target.nextSourceAddress())
        request = SharedBytes("GET /api/events?topics=\(topics) HTTP/1.1\r\nHost: \(target.host)\r\nAccept: text/event-stream\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
    }

    private let request: SharedBytes

    deinit {
        close()
        readBuffer.deallocate()
    }

    /// Sends the request and reads the head: the status (200 for a stream).
    func open(timeout: Double) async throws -> Int {
        socket.deadline = MonotonicClock.after(seconds: timeout)
        defer { socket.deadline = 0 }
        try await socket.write(request)
        while true {
            if let head = ResponseHead(parsing: raw) {
                raw.removeFirst(head.length)
                return head.status
            }
            guard try await fill() else { throw HTTPClientConnection.Failure.connection("closed before the answer") }
        }
    }

    /// Reads events and hands each to `handle` until the stream ends or is closed.
    func read(_ handle: (Event) -> Void) async {
        while !isClosed {
            decodeChunks()
            while let event = nextEvent() { handle(event) }
            guard (try? await fill()) == true else { break }
        }
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        socket.close()
    }

    private func fill() async throws -> Bool {
        let count = try await socket.read(into: readBuffer)
        guard count > 0 else { return false }
        raw.append(contentsOf: readBuffer[0..<count])
        return true
    }

    /// Moves chunk payloads from `raw` to `lines` (RFC 9112 §7.1).
    private func decodeChunks() {
        var index = 0
        while index < raw.count {
            if chunkLeft > 0 {
                let take = min(chunkLeft, raw.count - index)
                lines.append(contentsOf: raw[index..<(index + take)])
                index += take
                chunkLeft -= take
                continue
            }
            // A size line, possibly preceded by the CRLF that ends the last chunk.
            guard let lineEnd = raw[index...].firstIndex(ofBytes: Self.crlf) else { break }
            if lineEnd == index {
                index += 2
                continue
            }
            let sizeText = String(decoding: raw[index..<lineEnd], as: UTF8.self).prefix { $0.isHexDigit }
            chunkLeft = Int(sizeText, radix: 16) ?? 0
            index = lineEnd + 2
            if chunkLeft == 0 {
                isClosed = true
                break
            }
        }
        raw.removeFirst(index)
    }

    /// The next complete event in `lines`, if one has arrived whole. Comments
    /// (heartbeats) and `retry` are skipped.
    private func nextEvent() -> Event? {
        while let end = lines[...].firstIndex(ofBytes: Self.blankLine) {
            var event = Event()
            var hasData = false
            var start = 0
            while start < end {
                let lineEnd = lines[start..<end].firstIndex(ofBytes: Self.newline) ?? end
                let line = lines[start..<lineEnd]
                if line.starts(with: "data: ".utf8) {
                    event.data = line.dropFirst(6)
                    hasData = true
                } else if line.starts(with: "event: ".utf8) {
                    event.name = String(decoding: line.dropFirst(7), as: UTF8.self)
                } else if line.starts(with: "id: ".utf8) {
                    event.id = String(decoding: line.dropFirst(4), as: UTF8.self)
                }
                start = lineEnd + 1
            }
            // Copied out: `lines` is about to lose these bytes.
            event.data = ArraySlice(Array(event.data))
            lines.removeFirst(end + 2)
            if hasData { return event }
        }
        return nil
    }

    private static let newline: [UInt8] = [10]
    private static let blankLine: [UInt8] = [10, 10]
    private static let crlf: [UInt8] = [13, 10]
}
