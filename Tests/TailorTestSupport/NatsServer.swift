import Foundation
import Glibc

/// A NATS server of a test's own (Debian's `nats-server`), on a free port of
/// 127.0.0.1, that the test may stop and start again on the same port, as a
/// bus that restarts.
public final class NatsServer {
    /// `nats://127.0.0.1:PORT`.
    public let url: String
    public let port: Int
    private let program: String
    private let log: String
    private var child: pid_t?

    /// The variable that names the program (`scripts/test` sets it); without it, `/usr/sbin/nats-server`.
    public static let programVariable = "TAILOR_TEST_NATS_SERVER"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        program = ProcessInfo.processInfo.environment[Self.programVariable] ?? "/usr/sbin/nats-server"
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw Failure(description: "no \(program): install Debian's nats-server, or set \(Self.programVariable)")
        }
        port = try freeLoopbackPort()
        url = "nats://127.0.0.1:\(port)"
        log = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-nats-\(UUID().uuidString).log").path
        try start()
    }

    deinit {
        stop()
        unlink(log)
    }

    /// Starts the server and waits until it takes connections.
    public func start() throws {
        let arguments = [program, "-a", "127.0.0.1", "-p", String(port), "-l", log]
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var started = pid_t()
        let spawned = posix_spawn(&started, program, nil, nil, &pointers, environ)
        guard spawned == 0 else { throw Failure(description: "nats-server could not start: errno \(spawned)") }
        child = started
        guard eventually(timeout: 30, { Self.answers(port: port) }) else {
            throw Failure(description: "nats-server never took connections: \(Self.tail(of: log))")
        }
    }

    /// Stops the server at once (SIGKILL): its connections drop as in a crash.
    public func stop() {
        guard let running = child else { return }
        kill(running, SIGKILL)
        var status: Int32 = 0
        while waitpid(running, &status, 0) < 0 && errno == EINTR {}
        child = nil
    }

    private static func answers(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func tail(of path: String) -> String {
        String(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(2000))
    }
}
