import Foundation
import Synchronization
import TailorStore
import TailorTestSupport
import Testing

/// Two servers on one PostgreSQL database when the database fails them: its
/// connections ended, PostgreSQL stopped and started again, the feed pruned
/// past a server, positions it never had.
@Suite struct MultiInstanceFailureTests {
    /// Every connection of both servers ends at once, as when PostgreSQL
    /// restarts: requests meanwhile get 503 at worst, never another failure,
    /// and both servers go on, the feed included.
    @Test func serversComeBackWhenTheirDatabaseConnectionsEnd() throws {
        let location = try TestDatabase.fresh(.postgres)
        let a = try TestApp(database: location)
        let b = try TestApp(database: location)
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        let onB = try SSEClient(port: b.port, token: bob.token, topics: "badge", timeout: 10)
        _ = try onB.next()
        var statuses: [Int] = []
        // A steady sender, a message every 10 ms.
        var pace = Pace(every: 0.01)
        for index in 0..<40 {
            if index == 10 { try TestDatabase.dropConnections(to: location) }
            statuses.append(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"m\#(index)"}"#).status)
            pace.wait()
        }
        #expect(statuses.allSatisfy { $0 == 201 || $0 == 503 }, "\(statuses)")
        #expect(statuses.suffix(10).allSatisfy { $0 == 201 }, "\(statuses)")
        let stored = statuses.filter { $0 == 201 }.count
        let badge = try onB.next(where: { $0.name == "badge" && $0.json["unread"] as? Int == stored })
        #expect(badge.json["unread"] as? Int == stored)
        #expect(try b.client(as: bob).get("/api/badge").json["unread"] as? Int == stored)
    }

    /// A position this database never had (an old cookie, an id from another
    /// database) is not waited for, in a request or a stream's Last-Event-ID.
    @Test func positionsPastTheDatabasesAreNotWaitedFor() throws {
        let app = try TestApp(database: try TestDatabase.fresh(.postgres)) { $0.positionWait = .seconds(30) }
        let alice = try app.user("alice")
        let client = try APIClient(port: app.port)
        client.token = alice.token
        #expect(try client.get("/api/badge", headers: ["Tailor-Position: 1000000000000"]).status == 200)
        #expect(try client.get("/api/badge", headers: ["Cookie: tailor_position=1000000000000"]).status == 200)
        let stream = try SSEClient(port: app.port, token: alice.token, topics: "badge", lastEventID: "1000000000000", timeout: 5)
        #expect(stream.response.status == 200)
        #expect(try stream.next().name == "badge")
    }

    /// A pooled reader whose connection ended with the database's restart
    /// reads again on a new connection: the request is answered, not 503.
    @Test func aReadOnAConnectionThatEndedIsMadeOnANewOne() throws {
        let location = try TestDatabase.fresh(.postgres)
        let app = try TestApp(database: location)
        let alice = try app.user("alice")
        #expect(try alice.get("/api/sessions").status == 200)
        try TestDatabase.dropConnections(to: location)
        #expect(try alice.get("/api/sessions").status == 200)
    }

    /// PostgreSQL stopped for a while and started again under writes through
    /// both servers: meanwhile requests get 503 with Retry-After, never another
    /// answer and never a wait past the timeouts; then both servers take writes
    /// again, every acknowledged message is stored, and the streams on both
    /// catch up.
    @Test func bothServersResumeWhenPostgreSQLRestartsUnderWrites() throws {
        let database = try PostgresServer()
        let location = DatabaseLocation.postgres(url: database.url)
        let a = try TestApp(database: location)
        let b = try TestApp(database: location)
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        let streams = [try SSEClient(port: a.port, token: bob.token, topics: "badge", timeout: 20),
                       try SSEClient(port: b.port, token: bob.token, topics: "badge", timeout: 20)]
        for stream in streams { _ = try stream.next() }

        struct Answer { var status: Int; var retryAfter: String?; var seconds: Double; var id: String? }
        let answers = Mutex<[String: [Answer]]>([:])
        let sent = DispatchGroup()
        for (client, name) in [(alice, "a"), (try b.client(as: alice), "b")] {
            sent.enter()
            Thread {
                // A steady sender, a message every quarter of a second.
                var pace = Pace(every: 0.25)
                for index in 0..<24 {
                    let started = Date()
                    let response = try? client.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(name)\#(index)"}"#)
                    let answer = Answer(status: response?.status ?? 0, retryAfter: response?.header("retry-after"),
                                        seconds: Date().timeIntervalSince(started),
                                        id: (response?.json["message"] as? [String: Any])?["id"] as? String)
                    answers.withLock { $0[name, default: []].append(answer) }
                    pace.wait()
                }
                sent.leave()
            }.start()
        }
        #expect(eventually(timeout: 10) { answers.withLock { $0.values.map(\.count).min() ?? 0 } >= 3 && answers.withLock { $0.count } == 2 })
        try database.stop()
        // The outage lasts until a sender is refused: the writes meanwhile wait and retry.
        #expect(eventually(timeout: 30) { answers.withLock { $0.values.joined().contains { $0.status == 503 } } })
        try database.start()
        sent.wait()

        let all = answers.withLock { $0 }
        let statuses = all.mapValues { $0.map(\.status) }
        #expect(all.values.joined().allSatisfy { $0.status == 201 || ($0.status == 503 && $0.retryAfter != nil) }, "\(statuses)")
        #expect(all.values.joined().contains { $0.status == 503 }, "the outage was seen: \(statuses)")
        #expect(all.values.joined().allSatisfy { $0.seconds < 5 })
        #expect(all.values.allSatisfy { $0.suffix(4).allSatisfy { $0.status == 201 } }, "both servers write again: \(statuses)")
        // A commit cut off by the stop may be stored without its answer: what
        // the servers show is checked against the database, and against
        // every message that was acknowledged.
        let acknowledged = Set(all.values.joined().compactMap(\.id))
        for app in [a, b] {
            let view = try app.client(as: bob).waitFor(topic: "chat:\(chatID)") { view in
                acknowledged.isSubset(of: Set((view["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }))
            }
            let shown = (view["messages"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(!acknowledged.isEmpty && acknowledged.isSubset(of: Set(shown)), "\(view)")
            let unread = try #require(try app.client(as: bob).get("/api/badge").json["unread"] as? Int)
            #expect(unread == shown.count)
        }
        for stream in streams {
            let unread = try a.client(as: bob).get("/api/badge").json["unread"] as? Int
            #expect(try stream.next(where: { $0.name == "badge" && $0.json["unread"] as? Int == unread }).name == "badge")
        }
    }

    /// A server whose follower was away while more entries than the feed
    /// keeps came and went cannot apply them one by one: it starts over, and
    /// its answers and streams are current again.
    @Test func aServerThatFellBehindThePrunedFeedStartsOver() throws {
        let location = try TestDatabase.fresh(.postgres)
        let a = try TestApp(database: location) { $0.feedWindow = 3 }
        let b = try TestApp(database: location) { $0.feedWindow = 3 }
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        let bobOnB = try b.client(as: bob)
        let stream = try SSEClient(port: b.port, token: bob.token, topics: "badge", timeout: 10)
        _ = try stream.next()
        #expect(try bobOnB.get("/api/badge").json["unread"] as? Int == 0)
        try TestDatabase.dropConnections(to: location, suffix: "-feed")
        for index in 0..<20 {
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"m\#(index)"}"#)
        }
        let badge = try bobOnB.waitFor(topic: "badge") { $0["unread"] as? Int == 20 }
        #expect(badge["unread"] as? Int == 20)
        #expect(try stream.next(where: { $0.json["unread"] as? Int == 20 }).name == "badge")
    }
}
