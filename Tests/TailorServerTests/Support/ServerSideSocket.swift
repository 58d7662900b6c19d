import Foundation
import Glibc
import TailorTestSupport

/// The server's end of a test client's connection, as the kernel lists it in
/// `/proc/net/tcp`: how many received bytes the server has not read yet.
struct ServerSideSocket {
    /// `/proc/net/tcp`'s addresses of the server's end: its own, then the client's.
    let local: String
    let remote: String

    init(serverPort: Int, client: RawClient) throws {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client.fd, $0, &length) }
        }
        guard status == 0 else { throw RawClient.Failure(description: "getsockname failed: errno \(errno)") }
        let clientPort = Int(UInt16(bigEndian: address.sin_port))
        // 127.0.0.1 as the kernel prints it: the address's bytes as a little-endian word.
        local = String(format: "0100007F:%04X", serverPort)
        remote = String(format: "0100007F:%04X", clientPort)
    }

    /// Bytes waiting in the server's receive queue, or nil if the socket is not listed.
    func unread() throws -> Int? {
        let table = try Self.wholeTable()
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[1] == local, fields[2] == remote else { continue }
            return fields[4].split(separator: ":").last.flatMap { Int($0, radix: 16) }
        }
        return nil
    }

    /// The whole of `/proc/net/tcp`, read to its end: its size shows as 0, and
    /// a reader that trusts the size gets only its first page.
    private static func wholeTable() throws -> String {
        let fd = open("/proc/net/tcp", O_RDONLY)
        guard fd >= 0 else { throw RawClient.Failure(description: "/proc/net/tcp: errno \(errno)") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw RawClient.Failure(description: "/proc/net/tcp: errno \(errno)") }
            if count == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
    }

    /// Waits until the server has read everything sent so far, up to `timeout`
    /// seconds; whether it has. The kernel offers no wake-up for it, so it looks
    /// every 100 µs.
    func waitUntilRead(timeout: Double = 20) throws -> Bool {
        try eventually(timeout: timeout, interval: 0.0001) { try unread() == 0 }
    }
}
