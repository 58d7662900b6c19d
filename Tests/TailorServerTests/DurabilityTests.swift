import Foundation
import TailorStore
import TailorTestSupport
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
        let alice = try APIClient.signedUp("alice", port: first.port)
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
        #expect(second.waitForExit(timeout: 20) == 0)
    }

    /// Two servers on one PostgreSQL database; one is killed during a burst of
    /// writes. Every write it acknowledged is on the other, and a stream that
    /// followed the chat on the killed one resumes on the other with all of them.
    @Test func acknowledgedWritesSurviveSIGKILLOfOneOfTwoServers() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let doomed = try ShutdownTests.RunningServer(arguments: ["--db", url])
        let survivor = try ShutdownTests.RunningServer(arguments: ["--db", url])
        let alice = try APIClient.signedUp("alice", port: doomed.port)
        let bobToken = try #require(try APIClient(port: doomed.port).send("POST", "/api/users", json: #"{"name":"bob"}"#).json["token"] as? String)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let stream = try SSEClient(port: doomed.port, token: bobToken, topics: "chat:\(chatID)")
        var lastSeen = try #require(try stream.next().id)

        let senders = try (0..<4).map { _ in
            let client = try APIClient(port: doomed.port)
            client.token = alice.token
            return client
        }
        var acknowledged = Set<String>()
        for round in 0...15 {
            for (index, sender) in senders.enumerated() {
                let body = #"{"text":"m\#(round)-\#(index)"}"#
                try sender.connection.send("POST /api/chats/\(chatID)/messages HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(alice.token!)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
            // The last round's requests are in flight when the server dies.
            if round == 15 { kill(doomed.process.processIdentifier, SIGKILL) }
            for (index, sender) in senders.enumerated() {
                guard let response = try? sender.connection.readResponse(), response.status == 201 else { continue }
                acknowledged.insert("m\(round)-\(index)")
            }
            if round == 5 { lastSeen = try stream.next(where: { $0.name == "chat" }).id ?? lastSeen }
        }
        doomed.process.waitUntilExit()
        #expect(acknowledged.count >= 60, "the rounds before the kill were all answered")

        let reader = try APIClient(port: survivor.port)
        reader.token = alice.token
        let view = try reader.get("/api/chats/\(chatID)?limit=200").json
        let stored = Set((view["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String })
        #expect(acknowledged.isSubset(of: stored), "acknowledged but lost: \(acknowledged.subtracting(stored))")
        let resumed = try SSEClient(port: survivor.port, token: bobToken, topics: "chat:\(chatID)", lastEventID: lastSeen)
        // The survivor may still be following the feed: its stream catches up,
        // event by event, to what the database holds.
        let lastStored = ((view["messages"] as? [[String: Any]])?.last?["text"]) as? String
        let latest = try resumed.next(where: { $0.name == "chat" && ((($0.json["messages"] as? [[String: Any]])?.last?["text"]) as? String) == lastStored })
        #expect(latest.id != nil)
        kill(survivor.process.processIdentifier, SIGTERM)
        #expect(survivor.waitForExit(timeout: 20) == 0)
    }

    /// `tailor backup` copies the database while its server takes writes. A
    /// copy taken in the middle of them holds the messages acknowledged up to
    /// one moment, in order; one taken once they stop, with the latest still in
    /// the write-ahead log, is served by a server of its own with every view
    /// model as the original answers it.
    @Test func tailorBackupCopiesADatabaseWhileItsServerTakesWrites() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let live = folder.appendingPathComponent("tailor.sqlite").path
        let server = try ShutdownTests.RunningServer(arguments: ["--db", live, "--write-rate", "0"])
        defer { kill(server.process.processIdentifier, SIGTERM); _ = server.waitForExit(timeout: 20) }
        let alice = try APIClient.signedUp("alice", port: server.port)
        let bob = try APIClient.signedUp("bob", port: server.port)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        #expect(try alice.send("POST", "/api/orders", json: OrderAPITests.groceries).status == 201)

        func backUp(to name: String, writingMeanwhile: Bool) throws -> String {
            let destination = folder.appendingPathComponent(name).path
            let backup = Process()
            backup.executableURL = ShutdownTests.executable
            backup.arguments = ["backup", "--db", live, destination]
            backup.standardOutput = FileHandle.nullDevice
            try SpawnGate.run(backup)
            var sent = 0
            while writingMeanwhile && (backup.isRunning || sent < 10) {
                #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"m\#(sent)"}"#).status == 201)
                sent += 1
            }
            backup.waitUntilExit()
            #expect(backup.terminationStatus == 0)
            return destination
        }
        func texts(on port: Int) throws -> [String] {
            let reader = try APIClient(port: port)
            reader.token = bob.token
            let view = try reader.get("/api/chats/\(chatID)?limit=200").json
            return (view["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        }

        let midway = try backUp(to: "midway.sqlite", writingMeanwhile: true)
        let all = try texts(on: server.port)
        let stopped = try backUp(to: "stopped.sqlite", writingMeanwhile: false)

        let midwayServer = try ShutdownTests.RunningServer(arguments: ["--db", midway])
        let copied = try texts(on: midwayServer.port)
        #expect(all.starts(with: copied))
        kill(midwayServer.process.processIdentifier, SIGTERM)
        #expect(midwayServer.waitForExit(timeout: 20) == 0)

        let copy = try ShutdownTests.RunningServer(arguments: ["--db", stopped])
        defer { kill(copy.process.processIdentifier, SIGTERM); _ = copy.waitForExit(timeout: 20) }
        let orderID = try #require((alice.get("/api/orders").json["items"] as? [[String: Any]])?.first?["id"] as? String)
        for user in [alice, bob] {
            let onCopy = try APIClient(port: copy.port)
            onCopy.token = user.token
            for path in ["/api/chats", "/api/chats/\(chatID)?limit=200", "/api/badge", "/api/orders", "/api/orders/\(orderID)", "/api/me"] {
                #expect(try onCopy.get(path).body == user.get(path).body, "\(path)")
            }
        }
        // Refused: an existing destination, a PostgreSQL URL, a missing database.
        for arguments in [["backup", "--db", live, stopped], ["backup", "--db", "postgres://db/tailor", folder.appendingPathComponent("x").path],
                          ["backup", "--db", folder.appendingPathComponent("none.sqlite").path, folder.appendingPathComponent("y").path]] {
            let refused = Process()
            refused.executableURL = ShutdownTests.executable
            refused.arguments = arguments
            refused.standardOutput = FileHandle.nullDevice
            refused.standardError = FileHandle.nullDevice
            try SpawnGate.run(refused)
            refused.waitUntilExit()
            #expect(refused.terminationStatus != 0, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("none.sqlite").path))
    }

    /// `tailor backup`, its status and its standard error.
    private static func backUp(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let backup = Process()
        backup.executableURL = ShutdownTests.executable
        backup.arguments = ["backup"] + arguments
        backup.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        backup.standardError = errors
        try SpawnGate.run(backup)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        backup.waitUntilExit()
        return (backup.terminationStatus, text)
    }

    /// A backup cannot mislead: a destination that is a symbolic link, even
    /// one to nowhere, is refused and its target not made; a source that is
    /// empty, not SQLite or no Tailor database is refused and leaves nothing
    /// at the destination, so that the same command once the source is right
    /// succeeds; and the copy restored in place of a database serves it.
    @Test func aBackupThatCannotBeWholeLeavesNothingAndALinkIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func leftovers() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("partial") }
        }

        let live = path("tailor.sqlite")
        let server = try ShutdownTests.RunningServer(arguments: ["--db", live])
        let alice = try APIClient.signedUp("alice", port: server.port)
        kill(server.process.processIdentifier, SIGTERM)
        #expect(server.waitForExit(timeout: 20) == 0)

        try FileManager.default.createSymbolicLink(atPath: path("link.sqlite"), withDestinationPath: path("elsewhere.sqlite"))
        let linked = try Self.backUp(["--db", live, path("link.sqlite")])
        #expect(linked.status != 0)
        #expect(linked.errors.contains("symbolic link"), "\(linked.errors)")
        #expect(!FileManager.default.fileExists(atPath: path("elsewhere.sqlite")))

        #expect(FileManager.default.createFile(atPath: path("empty.sqlite"), contents: nil))
        #expect(FileManager.default.createFile(atPath: path("notes.sqlite"), contents: Data("not a database at all, only text".utf8)))
        let other = try TestDatabase.connection(to: .sqlite(path: path("other.sqlite")))
        try other.run("CREATE TABLE things (id INTEGER PRIMARY KEY)")
        for (source, said) in [(path("empty.sqlite"), "empty"), (path("notes.sqlite"), "not a Tailor database"),
                               (path("other.sqlite"), "not a Tailor database")] {
            let refused = try Self.backUp(["--db", source, path("copy.sqlite")])
            #expect(refused.status != 0, "\(source)")
            #expect(refused.errors.contains(said), "\(source): \(refused.errors)")
            #expect(!FileManager.default.fileExists(atPath: path("copy.sqlite")), "\(source)")
        }
        #expect(try leftovers().isEmpty)

        let made = try Self.backUp(["--db", live, path("copy.sqlite")])
        #expect(made.status == 0, "\(made.errors)")
        #expect(try leftovers().isEmpty)
        // Restored: the copy in place of a database, its log files gone with the old one.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: live + suffix) }
        try FileManager.default.moveItem(atPath: path("copy.sqlite"), toPath: live)
        let restored = try ShutdownTests.RunningServer(arguments: ["--db", live])
        defer { kill(restored.process.processIdentifier, SIGTERM); _ = restored.waitForExit(timeout: 20) }
        let onRestored = try APIClient(port: restored.port)
        onRestored.token = alice.token
        #expect(try onRestored.get("/api/me").json["user"].map { ($0 as? [String: Any])?["name"] as? String } == "alice")
    }
}
