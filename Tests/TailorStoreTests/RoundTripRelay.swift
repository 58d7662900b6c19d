import Foundation
import Glibc
import Synchronization

/// Stands between one client and a server on loopback, passes every byte on,
/// and counts the client's turns: each time the client sends after the server
/// has spoken, it waited for an answer, and a round trip begins. Stops with
/// the connection.
final class RoundTripRelay: Sendable {
    /// The port clients connect to instead of the server's.
    let port: UInt16
    private let listener: Int32
    private let serverPort: UInt16
    private let counted = Mutex(0)

    init(toPort serverPort: UInt16) throws {
        self.serverPort = serverPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in relayOne() }
    }

    /// The client's turns so far.
    var turns: Int { counted.withLock { $0 } }

    private func relayOne() {
        defer { close(listener) }
        let client = accept(listener, nil, nil)
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client); close(server) }
        var address = Self.loopback(port: serverPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard client >= 0, connected else { return }
        var serverSpoke = true
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
            guard poll(&descriptors, 2, -1) > 0 else { return }
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let fromClient = index == 0
                let count = read(descriptor.fd, &buffer, buffer.count)
                guard count > 0 else { return }
                if fromClient && serverSpoke { counted.withLock { $0 += 1 } }
                serverSpoke = !fromClient
                guard Self.writeAll(buffer[..<count], to: fromClient ? server : client) else { return }
            }
        }
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            rest = rest.dropFirst(written)
        }
        return true
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
