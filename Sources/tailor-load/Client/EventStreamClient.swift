import TailorLoop
import TailorWire

/// One Server-Sent Events stream, read as a browser would: the chunked body
/// decoded, then its events read by the wire format's reader (`TailorWire`).
///
/// `@unchecked Sendable`: read only by tasks on its socket's loop.
final class EventStreamClient: @unchecked Sendable {
    private let socket: SocketConnection
    private var raw: [UInt8] = []       // bytes read, not yet de-chunked
    private var events = EventStreamParser()
    private var ready: [EventStreamEvent] = []  // events read, not yet handed on
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
    func read(_ handle: (EventStreamEvent) -> Void) async {
        while !isClosed {
            decodeChunks()
            for event in ready { handle(event) }
            ready.removeAll(keepingCapacity: true)
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

    /// Reads the chunks' payloads in `raw` into events (RFC 9112 §7.1).
    private func decodeChunks() {
        var index = 0
        while index < raw.count {
            if chunkLeft > 0 {
                let take = min(chunkLeft, raw.count - index)
                ready += events.read(raw[index..<(index + take)])
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

    private static let crlf: [UInt8] = [13, 10]
}
