import Foundation
import Glibc

/// A blocking TCP client on 127.0.0.1 that sends exact bytes and reads raw
/// responses, so tests see what the server really wrote.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects, with `timeout` seconds for every later read.
    init(port: Int, timeout: Double = 15, receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        if let receiveBuffer {
            var size = Int32(receiveBuffer)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            close(fd)
            throw Failure(description: "connect to \(port) failed: errno \(errno)")
        }
    }

    deinit {
        close(fd)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            sent += count
        }
    }

    /// Closes with a reset instead of a FIN: an abrupt disconnect.
    func reset() {
        var linger = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Reads one response; for HEAD requests pass `bodyless`.
    func readResponse(bodyless: Bool = false) throws -> TestResponse {
        let headEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var response = try TestResponse(head: head)
        if bodyless || response.status == 304 || response.status == 204 || response.status / 100 == 1 {
            return response
        }
        if let length = response.header("content-length").flatMap(Int.init) {
            try fill(length)
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else if response.header("transfer-encoding")?.lowercased() == "chunked" {
            response.body = try readChunked()
        } else {
            response.body = buffer + (try readToEnd())
            buffer = []
        }
        return response
    }

    /// Only the head of a response; the body is left to `readSome`.
    func readHead() throws -> TestResponse {
        let headEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        return try TestResponse(head: head)
    }

    /// Bytes already buffered, else one read; nil at the end of the stream.
    func readSome() throws -> [UInt8]? {
        if !buffer.isEmpty {
            defer { buffer = [] }
            return buffer
        }
        return try readChunk()
    }

    /// Everything until the server closes.
    func readToEnd() throws -> [UInt8] {
        var all = buffer
        buffer = []
        while let chunk = try readChunk() { all += chunk }
        return all
    }

    /// True when the server has closed the connection (EOF or reset) within the timeout.
    func isClosedByServer() -> Bool {
        while true {
            do {
                guard try readChunk() != nil else { return true }
            } catch {
                return errno == ECONNRESET
            }
        }
    }

    private func readChunked() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let lineEnd = try readUntil([13, 10])
            let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";")[0]
            buffer.removeFirst(lineEnd + 2)
            guard let size = Int(sizeText, radix: 16) else { throw Failure(description: "bad chunk size \(sizeText)") }
            if size == 0 {
                _ = try readUntil([13, 10])
                buffer.removeFirst(2)
                return body
            }
            try fill(size + 2)
            body += buffer[0..<size]
            buffer.removeFirst(size + 2)
        }
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for index in searchFrom...(buffer.count - marker.count) where buffer[index..<(index + marker.count)].elementsEqual(marker) {
                    return index
                }
                searchFrom = buffer.count - marker.count + 1
            }
            guard let chunk = try readChunk() else { throw Failure(description: "closed before the response ended; got \(String(decoding: buffer, as: UTF8.self))") }
            buffer += chunk
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count {
            guard let chunk = try readChunk() else { throw Failure(description: "closed inside a body") }
            buffer += chunk
        }
    }

    /// One read: bytes, or nil at EOF. Throws on timeout or reset.
    private func readChunk() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { return nil }
        guard count > 0 else { throw Failure(description: "recv failed: errno \(errno)") }
        return Array(chunk[0..<count])
    }
}

/// A response as read off the wire.
struct TestResponse {
    var status: Int
    var reason: String
    var headers: [(name: String, value: String)]
    var body: [UInt8] = []

    init(head: String) throws {
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw RawClient.Failure(description: "bad status line \(lines[0])")
        }
        self.status = status
        reason = statusParts.count > 2 ? String(statusParts[2]) : ""
        headers = lines.dropFirst().map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `code` of an API JSON error body.
    var errorCode: String? {
        guard let range = text.range(of: #""code":""#) else { return nil }
        let rest = text[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
