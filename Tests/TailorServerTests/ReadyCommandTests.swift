import Foundation
import TailorTestSupport
import Testing

/// `tailor ready`, a container's health check: exit 0 while the server on the
/// port answers `/readyz` with 200, 1 when nothing answers there.
@Suite struct ReadyCommandTests {
    /// Runs `tailor ready` with `arguments`: its exit status and output.
    private func ready(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = ShutdownTests.executable
        process.arguments = ["ready"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        try SpawnGate.run(process)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func aReadyServerPassesAndAGoneOneFails() throws {
        let server = try ShutdownTests.RunningServer()
        let answer = try ready(["--port", String(server.port)])
        #expect(answer.status == 0)
        #expect(answer.output.hasPrefix("HTTP/1.1 200 OK"))
        #expect(answer.output.contains(#"{"status":"ready"}"#))
        // The port as `tailor serve` takes it, from the environment.
        #expect(try ready([], environment: ["TAILOR_PORT": String(server.port)]).status == 0)

        kill(server.process.processIdentifier, SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)
        let gone = try ready(["--port", String(server.port)])
        #expect(gone.status == 1)
        #expect(gone.output.contains("no answer from 127.0.0.1:\(server.port)"))
    }
}
