import Foundation
import TailorTestSupport
import Testing

/// Two `tailor` servers on one PostgreSQL database under concurrent writes:
/// `tailor-load scenario` shares its users out over both, so the two members
/// of a chat write through different servers, and every user sends and marks
/// read often, so that each server's batches lock chats the other's lock too.
/// Behaviour under load is correctness: no answer may fail, no batch may
/// deadlock with the other server's, and every stream must end current.
@Suite struct ClusterLoadTests {
    @Test func twoServersUnderCrossingWritesFailNothingAndDeadlockNever() throws {
        // A database of its own: PostgreSQL counts the deadlocks of each.
        let database = try TestDatabase.ownPostgresDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-cluster-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let flags = ["--db", database.url, "--write-rate", "0", "--account-rate", "0", "--max-connections-per-address", "0",
                     "--log-level", "warning"]
        let logs = [folder.appendingPathComponent("first.log"), folder.appendingPathComponent("second.log")]
        let servers = try logs.map { try ShutdownTests.RunningServer(arguments: flags, log: $0) }
        func stopServers() {
            for server in servers where server.process.isRunning {
                kill(server.process.processIdentifier, SIGTERM)
                _ = server.waitForExit(timeout: 20)
            }
        }
        defer { stopServers() }

        let report = folder.appendingPathComponent("report.json")
        let load = Process()
        load.executableURL = LoadScenarioTests.loadExecutable
        load.arguments = ["scenario", "--users", "100", "--rate", "1000", "--duration", "6", "--readers", "2", "--seed", "11",
                          "--mark-read-every", "0.02", "--drain", "20", "--json", report.path]
            + servers.flatMap { ["--url", "http://127.0.0.1:\($0.port)"] }
        load.standardOutput = FileHandle.nullDevice
        try SpawnGate.run(load)
        load.waitUntilExit()

        try LoadScenarioTests.expectNothingLost(report: report, sent: 6000)
        stopServers()
        // A deadlock the writer wrote again is lost to the answers, not to PostgreSQL's count.
        #expect(try database.deadlocks() == 0)
        for log in logs {
            let text = try String(contentsOf: log, encoding: .utf8)
            #expect(!text.contains("40P01") && !text.contains("deadlock"), "\(log.lastPathComponent): \(text.suffix(2_000))")
        }
        #expect(load.terminationStatus == 0)
    }
}
