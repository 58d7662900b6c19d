import TailorLoop

/// One keep-alive HTTP/1.1 connection of the load client, on a loop of ours.
/// Requests go one at a time; an answer is read whole (Content-Length bodies
/// only: the API's answers have one).
///
/// `@unchecked Sendable`: confined to its loop, like the socket it holds.
final class HTTPClientConnection: @unchecked Sendable {
    enum Failure: Error {
        /// No answer within the deadline.
        case timedOut
        /// Refused, reset or closed by the server.
        case connection(String)
    }

    private let target: LoadTarget
    private let loop: EventLoop
    private var socket: SocketConnection?
    private var buffer: [UInt8] = []
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    /// Confined to `loop`, like the socket it holds.
    init(target: LoadTarget, loop: EventLoop) {
        self.target = target
        self.loop = loop
    }

    deinit {
        socket?.close()
        readBuffer.deallocate()
    }

    /// Sends one request and reads its answer; on any failure the connection
    /// is dropped and the next request opens a new one.
    func send(_ method: String, _ path: String, token: String?, json: String? = nil,
              headers: String = "", timeout: Double) async throws -> ClientResponse {
        do {
            let socket = try self.socket ?? open()
            socket.deadline = MonotonicClock.after(seconds: timeout)
            var head = "\(method) \(path) HTTP/1.1\r\nHost: \(target.host)\r\n\(headers)"
            if let token { head += "Authorization: Bearer \(token)\r\n" }
            if let json { head += "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)" } else { head += "\r\n" }
            try await socket.write(SharedBytes(head.utf8))
            let response = try await readResponse(from: socket)
            socket.deadline = 0
            return response
        } catch let error as Failure {
            drop()
            throw error
        } catch ConnectionError.timedOut {
            drop()
            throw Failure.timedOut
        } catch {
            drop()
            throw Failure.connection("\(error)")
        }
    }

    private func open() throws -> SocketConnection {
        let socket = try loop.connect(host: target.host, port: target.port, from: target.nextSourceAddress())
        self.socket = socket
        buffer.removeAll(keepingCapacity: true)
        return socket
    }

    private func drop() {
        socket?.close()
        socket = nil
        buffer.removeAll(keepingCapacity: true)
    }

    private func readResponse(from socket: SocketConnection) async throws -> ClientResponse {
        while true {
            if let head = ResponseHead(parsing: buffer) {
                let total = head.length + (head.contentLength ?? 0)
                while buffer.count < total { try await fill(from: socket) }
                let body = Array(buffer[head.length..<total])
                buffer.removeFirst(total)
                if head.closes { drop() }
                return ClientResponse(status: head.status, etag: head.etag, body: body)
            }
            guard buffer.count < 64 * 1024 else { throw Failure.connection("an answer's head over 64 KiB") }
            try await fill(from: socket)
        }
    }

    private func fill(from socket: SocketConnection) async throws {
        let count = try await socket.read(into: readBuffer)
        guard count > 0 else { throw Failure.connection("closed by the server") }
        buffer.append(contentsOf: readBuffer[0..<count])
    }
}

/// The head of an answer: status and the few fields the client needs, read
/// from the bytes in place.
struct ResponseHead {
    let status: Int
    /// Bytes up to and including the blank line.
    let length: Int
    let contentLength: Int?
    let etag: String?
    let closes: Bool

    private static let blankLine = Array("\r\n\r\n".utf8)

    init?(parsing bytes: [UInt8]) {
        guard let end = bytes[...].firstIndex(ofBytes: Self.blankLine), end >= 12 else { return nil }
        // "HTTP/1.1 200 …": the status is the three digits after the first space.
        let digits = bytes[9..<12]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        status = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        var contentLength: Int?
        var etag: String?
        var closes = false
        var lineStart = (bytes[0..<end].firstIndex(of: 10) ?? end) + 1
        while lineStart < end {
            let lineEnd = bytes[lineStart..<end].firstIndex(of: 13) ?? end
            let line = bytes[lineStart..<lineEnd]
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                var valueStart = colon + 1
                while valueStart < lineEnd, bytes[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
                let value = bytes[valueStart..<lineEnd]
                if Self.name(line[..<colon], is: "content-length") {
                    contentLength = Int(String(decoding: value, as: UTF8.self))
                } else if Self.name(line[..<colon], is: "etag") {
                    etag = String(decoding: value, as: UTF8.self)
                } else if Self.name(line[..<colon], is: "connection") {
                    closes = Self.name(value, is: "close")
                }
            }
            lineStart = lineEnd + 2
        }
        self.length = end + 4
        self.contentLength = contentLength
        self.etag = etag
        self.closes = closes
    }

    /// Whether `bytes` spell `name` (lowercase ASCII), ignoring case.
    private static func name(_ bytes: ArraySlice<UInt8>, is name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { ($0 | 0x20) == $1 }
        }
    }
}
