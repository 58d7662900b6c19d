import Foundation
import Testing

/// An acknowledged write survives the process being killed at once.
@Suite struct DurabilityTests {
    @Test(arguments: ["normal", "full"])
    func everyAcknowledgedMessageSurvivesSIGKILL(sync: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-durable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("tailor.sqlite").path
        let arguments = ["--db", database, "--sync", sync]

        let first = try ShutdownTests.RunningServer(arguments: arguments)
        let alice = try APIClient(port: first.port)
        alice.token = try #require(try alice.send("POST", "/api/users", json: #"{"name":"alice"}"#).json["token"] as? String)
        _ = try APIClient(port: first.port).send("POST", "/api/users", json: #"{"name":"bob"}"#)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)

        // Four connections send at once, so the writer commits them in shared batches.
        let senders = try (0..<4).map { _ in
            let client = try APIClient(port: first.port)
            client.token = alice.token
            return client
        }
        let rounds = 50
        var acknowledged = 0
        for round in 0..<rounds {
            for (index, sender) in senders.enumerated() {
                let body = #"{"text":"m\#(round)-\#(index)"}"#
                try sender.connection.send("POST /api/chats/\(chatID)/messages HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(alice.token!)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
            for sender in senders where try sender.connection.readResponse().status == 201 {
                acknowledged += 1
            }
        }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        #expect(acknowledged == rounds * senders.count)

        let second = try ShutdownTests.RunningServer(arguments: arguments)
        let reader = try APIClient(port: second.port)
        reader.token = alice.token
        let view = try reader.get("/api/chats/\(chatID)?limit=200").json
        let texts = Set((view["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String })
        #expect(texts.count == acknowledged)
        #expect(texts.contains("m49-3"))
        kill(second.process.processIdentifier, SIGTERM)
        #expect(second.waitForExit(timeout: 5) == 0)
    }
}
