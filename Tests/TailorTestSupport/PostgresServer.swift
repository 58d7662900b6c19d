import Foundation
import Glibc

/// A PostgreSQL server of a test's own, for a test that stops and starts it:
/// its data in a temporary folder, listening on a free port of 127.0.0.1.
/// PostgreSQL refuses to run as root: as root the server runs as the user
/// "postgres" (made by Debian's package), otherwise as the caller.
public final class PostgresServer {
    /// The database "postgres" of the server, as the user "tailor".
    public let url: String
    private let folder: URL
    private let binaries: String
    private let port: Int

    /// The variable that names the folder of PostgreSQL's programs
    /// (`scripts/test` sets it); without it, the newest under /usr/lib/postgresql.
    public static let binariesVariable = "TAILOR_TEST_POSTGRES_BIN"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        binaries = try Self.findBinaries()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        if getuid() == 0 { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: folder.path) }
        port = try freeLoopbackPort()
        url = "postgresql://tailor@127.0.0.1:\(port)/postgres"
        try run("initdb", "-D", data, "-U", "tailor", "--auth=trust", "--encoding=UTF8", "--locale=C")
        try start()
    }

    deinit {
        try? stop()
        try? FileManager.default.removeItem(at: folder)
    }

    public func start() throws {
        try run("pg_ctl", "-D", data, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60",
                "-o", "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c synchronous_commit=off", "start")
    }

    /// Stops the server at once, as an operator's restart does: sessions end,
    /// transactions in flight are undone.
    public func stop() throws {
        try run("pg_ctl", "-D", data, "-m", "fast", "-w", "stop")
    }

    private var data: String { folder.appendingPathComponent("data").path }

    /// Runs one of PostgreSQL's programs as the user the server runs as, and
    /// waits for it. Spawned and awaited directly: Foundation's `Process` may
    /// miss the end of a child in a process that handles signals of its own.
    private func run(_ program: String, _ arguments: String...) throws {
        let path = binaries + "/" + program
        let command = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        let output = folder.appendingPathComponent("\(program).out").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var arguments = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, command[0], &actions, nil, &arguments, environ)
        guard spawned == 0 else { throw Failure(description: "\(program) could not start: errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        // Exited normally with 0: the low 7 bits hold no signal, the next 8 the code.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw Failure(description: "\(program) failed (status \(status)): \(said)")
        }
    }

    private static func findBinaries() throws -> String {
        if let named = ProcessInfo.processInfo.environment[binariesVariable] { return named }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard let newest = versions.compactMap(Int.init).max() else {
            throw Failure(description: "no PostgreSQL under \(root): install Debian's postgresql, or set \(binariesVariable)")
        }
        return "\(root)/\(newest)/bin"
    }
}
