import Glibc

/// A port on 127.0.0.1 that nothing listens on now, for a server a test starts.
public func freeLoopbackPort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw PortFailure(description: "socket: errno \(errno)") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
    }
    guard bound else { throw PortFailure(description: "bind: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

public struct PortFailure: Error, CustomStringConvertible {
    public let description: String
}
