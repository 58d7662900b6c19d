import Foundation
import TailorTestSupport
import Testing

/// `tailor-load scenario` against the real `tailor` executable: a short, small
/// run whose report must count every message sent as delivered, with no error
/// and every stream's last view models equal to the server's. Behaviour only:
/// no latency is asserted (that is what `scripts/loadtest` measures).
@Suite struct LoadScenarioTests {
    static var loadExecutable: URL {
        ShutdownTests.executable.deletingLastPathComponent().appendingPathComponent("tailor-load")
    }

    /// Expects `tailor-load`'s JSON report at `path` to count all `sent`
    /// messages accepted and delivered, no error, `checked` view models
    /// checked (any number when nil) and none stale; returns the report.
    @discardableResult
    static func expectNothingLost(report path: URL, sent: Int, checked: Int? = nil) throws -> [String: Any] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
        let messages = try #require(json["messages"] as? [String: Int])
        #expect(messages["scheduled"] == sent)
        #expect(messages["accepted"] == sent)
        #expect(messages["delivered"] == sent)
        #expect(messages["lost"] == 0)
        #expect((json["errors"] as? [String: Int]) == [:], "\(json["errors"] ?? "")")
        if let checked { #expect(json["viewModelsChecked"] as? Int == checked) } else { #expect((json["viewModelsChecked"] as? Int ?? 0) > 0) }
        #expect(json["viewModelsStale"] as? Int == 0)
        return json
    }

    /// The streams take JSON Patches unless `--whole`, and what they add up
    /// to must be the server's view models just the same; with a few chats and
    /// orders a user, as people have, and orders placed and paid meanwhile.
    @Test(arguments: [false, true]) func aSmallScenarioLosesNothing(whole: Bool) throws {
        let server = try ShutdownTests.RunningServer()
        defer { server.process.terminate() }
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-load-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }

        let load = Process()
        load.executableURL = Self.loadExecutable
        load.arguments = ["scenario", "--url", "http://127.0.0.1:\(server.port)", "--users", "20", "--rate", "40",
                          "--duration", "2", "--readers", "4", "--seed", "7", "--mark-read-every", "0.2",
                          "--server-pid", "\(server.process.processIdentifier)", "--json", report.path] + (whole ? ["--whole"] : ["--chats-per-user", "5", "--orders-per-user", "3"])
        load.standardOutput = FileHandle.nullDevice
        try SpawnGate.run(load)
        load.waitUntilExit()
        #expect(load.terminationStatus == 0)

        // Each stream's chats, badge and chat, and with orders changing its orders list too.
        let json = try Self.expectNothingLost(report: report, sent: 80, checked: whole ? 60 : 80)
        let routes = try #require(json["routes"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(Set(routes).isSuperset(of: ["POST /api/chats/:id/messages", "GET /api/chats", "GET /api/orders"]))
        #expect(routes.contains("PATCH /api/orders/:id") == !whole)
        let events = try #require(json["events"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(events.contains("chat.patch") == !whole)
        #expect(events.contains("orders.patch") == !whole)
        let serverFigures = try #require(json["server"] as? [String: Double])
        #expect(serverFigures["rssMiB"]! > 0)
        // The server's CPU per message, told apart into user space and the kernel.
        let cpu = try #require(json["serverCPUPerMessage"] as? [String: Double])
        #expect(abs(cpu["microseconds"]! - cpu["userMicroseconds"]! - cpu["systemMicroseconds"]!) < 0.001)
        #expect(cpu["userMicroseconds"]! >= 0 && cpu["systemMicroseconds"]! >= 0)
        // The writer's commits, from the server's /metrics: every message and read mark was in one.
        let commits = try #require(json["commits"] as? [String: Double])
        #expect(commits["perSecond"]! > 0)
        #expect(commits["eventsPerCommit"]! >= 1)
    }
}
