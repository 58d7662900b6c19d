import Foundation
import TailorApp
import TailorTestSupport
import Testing

/// The real `tailor` executable: it prints its port, serves, and on SIGTERM or
/// SIGINT finishes what is in flight and exits 0.
@Suite struct ShutdownTests {
    /// The `tailor` binary built beside the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tailor")
    }

    /// The first line the server prints (`listening on …`), read as it comes.
    static func firstLine(of output: Pipe) -> String {
        var line = ""
        while !line.hasSuffix("\n") {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line += String(decoding: byte, as: UTF8.self)
        }
        return line
    }

    final class RunningServer {
        let process = Process()
        let output = Pipe()
        var port = 0

        /// `environment` is added to the test's own; the server's log goes to
        /// `log` when given, and is dropped otherwise.
        init(arguments: [String] = [], environment: [String: String] = [:], log: URL? = nil) throws {
            process.executableURL = ShutdownTests.executable
            process.arguments = ["serve", "--port", "0", "--public", FileManager.default.temporaryDirectory.path,
                                 "--db", ":memory:"] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = output
            if let log {
                guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
                    throw RawClient.Failure(description: "cannot create \(log.path)")
                }
                process.standardError = try FileHandle(forWritingTo: log)
            } else {
                process.standardError = FileHandle.nullDevice
            }
            try SpawnGate.run(process)
            // Wait for the printed line, not for a fixed time.
            let line = ShutdownTests.firstLine(of: output)
            guard line.hasPrefix("listening on http://127.0.0.1:"), let port = Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw RawClient.Failure(description: "unexpected first line: \(line)")
            }
            self.port = port
        }

        func waitForExit(timeout: Double) -> Int32? {
            // Polled: waiting on the run loop for the exit can miss it.
            _ = eventually(timeout: timeout, interval: 0.01) { !process.isRunning }
            if process.isRunning {
                process.terminate()
                return nil
            }
            return process.terminationStatus
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalStopsTheServerGracefullyWithExitZero(signal: Int32) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            Issue.record("build the tailor executable first (scripts/test does)")
            return
        }
        let server = try RunningServer()
        let idle = try RawClient(port: server.port)
        let busy = try RawClient(port: server.port)
        try busy.send("GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try busy.readResponse().status == 200)
        // A request in flight: its head is read (the server says 100 Continue), its body not yet sent.
        let body = #"{"name":"late"}"#
        try busy.send("POST /api/users HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        #expect(try busy.readResponse().status == 100)
        kill(server.process.processIdentifier, signal)
        // Draining has begun once the listener is closed: new connections are refused.
        #expect(eventually(interval: 0.01) { (try? RawClient(port: server.port)) == nil })
        try busy.send(body)
        let last = try busy.readResponse()
        #expect(last.status == 201)
        #expect(last.header("connection") == "close")
        #expect(idle.isClosedByServer())
        #expect(server.waitForExit(timeout: 20) == 0)
    }

    @Test func aPortInUseFailsToStartWithAnError() throws {
        let first = try RunningServer()
        let second = Process()
        second.executableURL = Self.executable
        second.arguments = ["serve", "--port", "\(first.port)", "--public", FileManager.default.temporaryDirectory.path, "--db", ":memory:"]
        second.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        second.standardError = errors
        try SpawnGate.run(second)
        second.waitUntilExit()
        #expect(second.terminationStatus != 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("Address already in use"))
        kill(first.process.processIdentifier, SIGTERM)
        #expect(first.waitForExit(timeout: 20) == 0)
    }

    /// Values a flag's type accepts but the server cannot use: each is refused at
    /// start with the flag's name, instead of trapping later.
    @Test(arguments: [
        ["--bot-delay", "1e16"], ["--idle-timeout", "inf"], ["--header-timeout", "1e300"], ["--heartbeat", "inf"],
        ["--heartbeat", "nan"], ["--bot-delay", "-1"], ["--max-body", "99999999999999"], ["--threads", "100000"],
        ["--offline-grace", "4000"], ["--offline-grace", "inf"], ["--presence-lifetime", "0.1"], ["--presence-lifetime", "nan"],
    ])
    func aNumberOutsideItsRangeIsRefusedAtStart(flag: [String]) throws {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--db", ":memory:"] + flag
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try SpawnGate.run(process)
        _ = eventually(interval: 0.01) { !process.isRunning }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains(flag[0]), "\(message)")
    }

    /// A clean stop copies the write-ahead log into the database file: what is
    /// left is the file alone, with everything in it.
    @Test func aCleanStopLeavesNoWriteAheadLog() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tailor.sqlite").path
        let server = try RunningServer(arguments: ["--db", path])
        let client = try RawClient(port: server.port)
        for index in 0..<50 {
            let body = #"{"name":"user\#(index)"}"#
            try client.send("POST /api/users HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(try client.readResponse().status == 201)
        }
        kill(server.process.processIdentifier, SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(log == 0)
    }

    /// `--db :memory:` is a file in `TMPDIR`, as for any program, removed
    /// when the server stops.
    @Test func aTemporaryDatabaseLivesInTMPDIRUntilTheServerStops() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-temporary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try RunningServer(environment: ["TMPDIR": folder.path])
        let files = { try FileManager.default.contentsOfDirectory(atPath: folder.path) }
        let running = try files()
        #expect(running.contains { $0.hasPrefix("tailor-") && $0.hasSuffix(".sqlite") }, "\(running)")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
        #expect(try files().isEmpty)
    }

    /// With fewer descriptors than `--max-connections` asks for, the limit is
    /// lowered at start and said; connections past it get 503 instead of
    /// running the process out of descriptors, and the server keeps answering.
    @Test func theConnectionLimitFitsTheOpenFilesLimit() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -n 100 && exec \"$0\" serve --port 0 --db :memory: --public /tmp --header-timeout 60", Self.executable.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try SpawnGate.run(process)
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var line = ""
        while !line.hasSuffix("\n") {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { break }
            line += String(decoding: byte, as: UTF8.self)
        }
        let port = try #require(Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        let first = try RawClient(port: port)
        try first.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try first.readResponse().status == 200)
        var held: [RawClient] = []
        var refused = 0
        for _ in 0..<60 {
            let client = try RawClient(port: port, timeout: 0.1)
            if let response = try? client.readResponse(), response.status == 503 { refused += 1 } else { held.append(client) }
        }
        #expect(refused >= 20)
        try first.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try first.readResponse().status == 200)
        process.terminate()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("--max-connections lowered from 10000 to 36"), "\(message)")
    }

    /// SIGHUP reopens the access log, so that a rotation that moves the file
    /// is followed; the server goes on serving.
    @Test func sighupReopensTheAccessLog() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-rotate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("access.log")
        let server = try RunningServer(arguments: ["--access-log", log.path])
        defer { server.process.terminate(); server.process.waitUntilExit() }
        let client = try APIClient(port: server.port)
        #expect(try client.get("/healthz").status == 200)
        let rotated = folder.appendingPathComponent("access.log.1")
        func lines(_ file: URL) -> Int {
            ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        // The line of the first request reaches the file a moment after its answer.
        #expect(eventually { lines(log) >= 1 })
        try FileManager.default.moveItem(at: log, to: rotated)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(eventually { FileManager.default.fileExists(atPath: log.path) }, "a new file was opened at the log's path")
        #expect(try client.get("/healthz").status == 200)
        #expect(eventually { lines(log) >= 1 })
        #expect(lines(log) == 1)
        #expect(lines(rotated) == 1)
        #expect(server.process.isRunning)
    }

    /// `tailor --version` prints the version and exits 0.
    @Test func theVersionIsPrinted() throws {
        let process = Process()
        process.executableURL = ShutdownTests.executable
        process.arguments = ["--version"]
        let output = Pipe()
        process.standardOutput = output
        try SpawnGate.run(process)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.trimmingCharacters(in: .whitespacesAndNewlines) == TailorVersion.number)
    }

    /// `--log-format json` writes the server's log as JSON lines on standard error.
    @Test func theLogIsJSONLinesWhenAsked() throws {
        let process = Process()
        process.executableURL = ShutdownTests.executable
        process.arguments = ["serve", "--port", "0", "--db", ":memory:", "--public", FileManager.default.temporaryDirectory.path,
                             "--log-format", "json"]
        let errors = Pipe()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try SpawnGate.run(process)
        // Up and logging once it says where it listens.
        #expect(Self.firstLine(of: output).hasPrefix("listening on"))
        process.terminate()
        process.waitUntilExit()
        let lines = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(!lines.isEmpty)
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every line is a JSON object: \(lines)")
        #expect(objects.contains { ($0["message"] as? String)?.hasPrefix("serving") == true })
        #expect(objects.contains { ($0["message"] as? String)?.contains("shutting down") == true })
    }
}
