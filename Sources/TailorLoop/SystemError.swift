import CSystem
import Glibc

/// A failed system call: its name and `errno`, so a log line says what went wrong where.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let code: Int32

    public init(_ call: String, code: Int32 = csystem_errno()) {
        self.call = call
        self.code = code
    }

    public var description: String {
        "\(call): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// Why a connection can no longer be read or written.
public enum ConnectionError: Error, Sendable, Equatable {
    /// The peer reset or closed the connection while we were writing.
    case peerClosed
    /// A deadline set on the connection passed.
    case timedOut
    /// The server is shutting down and the connection was idle.
    case shuttingDown
}
