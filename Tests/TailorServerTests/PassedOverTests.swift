import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// Servers of one PostgreSQL database apply only the entries of the users
/// they serve: a server with no stream or request of an entry's users
/// passes it over (`tailor_feed_entries_passed_over_total`), and lets go of
/// what it kept of them, yet serves them as they are once a stream of theirs
/// opens there, or a request reads them. With the bus, whose messages say whom an entry
/// touches, it passes them over undecoded; without it nothing is passed over.
@Suite struct PassedOverTests {
    private static func servers(onBus: Bool) throws -> (TestApp, TestApp, NatsServer?) {
        let nats = onBus ? try NatsServer() : nil
        let location = try TestDatabase.fresh(.postgres)
        let make = { try TestApp(database: location) { $0.bus = nats.map { [$0.url] } ?? [] } }
        return (try make(), try make(), nats)
    }

    private static func counter(_ name: String, of app: TestApp) throws -> Double {
        try MetricsTests.scrape(app)[MetricsTests.Sample(name: name, labels: [:])] ?? 0
    }

    private static func lastText(of event: SSEClient.Event) -> String? {
        (event.json["messages"] as? [[String: Any]])?.last?["text"] as? String
    }

    @Test func aServerPassesOverTheUsersItDoesNotServeAndServesThemAsTheyAreOnceAStreamOpens() throws {
        let (a, b, nats) = try Self.servers(onBus: true)
        defer { _ = nats }
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        let bobOnA = try SSEClient(port: a.port, token: bob.token, topics: "chat:\(chatID)", timeout: 20)
        for index in 0..<10 {
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"while away \#(index)"}"#)
        }
        _ = try bobOnA.next { Self.lastText(of: $0) == "while away 9" }
        #expect(try eventually { try Self.counter("tailor_feed_entries_passed_over_total", of: b) >= 10 },
                "B applied the entries of users it does not serve")
        #expect(try Self.counter("tailor_feed_entries_passed_over_total", of: a) == 0, "A passed over its own users' entries")

        // Once bob's stream opens on B, B serves him: his first view model is
        // as the database holds it, and what follows comes live.
        let streamOnB = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chatID)", timeout: 20)
        #expect(Self.lastText(of: try streamOnB.next()) == "while away 9", "B showed bob's chat as it kept it before")
        #expect(try Self.counter("tailor_served_users", of: b) >= 1)
        let passedBefore = try Self.counter("tailor_feed_entries_passed_over_total", of: b)
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"served"}"#)
        _ = try streamOnB.next { Self.lastText(of: $0) == "served" }
        #expect(try Self.counter("tailor_feed_entries_passed_over_total", of: b) == passedBefore, "B passed over bob's entry while serving him")
        let list = try b.client(as: bob).get("/api/chats").json
        #expect(((list["items"] as? [[String: Any]])?.first?["message"]) as? String == "served")
    }

    /// Past the grace after a user's last stream here closed, what was kept
    /// of them is let go: a server keeps only the state of the users it serves.
    @Test func pastTheGraceWhatWasKeptOfAUserIsLetGo() throws {
        let nats = try NatsServer()
        let app = try TestApp(database: try TestDatabase.fresh(.postgres)) {
            $0.bus = [nats.url]
            $0.servedGrace = .milliseconds(300)
        }
        let keptAtFirst = try Self.counter("tailor_kept_users", of: app)
        let alice = try app.user("alice")
        let bob = try app.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        do {
            let stream = try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)", timeout: 20)
            let bobsStream = try SSEClient(port: app.port, token: bob.token, topics: "badge", timeout: 20)
            _ = try bobsStream.next()
            _ = try stream.next()
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"kept"}"#)
            _ = try stream.next { Self.lastText(of: $0) == "kept" }
            #expect(try Self.counter("tailor_kept_users", of: app) > keptAtFirst, "alice's chats were not kept while she was served")
        }
        #expect(try eventually { try Self.counter("tailor_kept_users", of: app) == keptAtFirst }, "alice's chats were kept past her grace")
        #expect(try Self.counter("tailor_served_users", of: app) == 0)
    }

    /// Without the bus every entry is applied, as before.
    @Test func withoutTheBusNothingIsPassedOver() throws {
        let (a, b, _) = try Self.servers(onBus: false)
        let alice = try a.user("alice")
        _ = try a.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        let sent = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"applied"}"#)
        let position = try #require(sent.header("tailor-position"))
        #expect(try b.client(as: alice).get("/api/chats/\(chatID)", headers: ["Tailor-Position: \(position)"]).status == 200)
        #expect(try Self.counter("tailor_feed_entries_passed_over_total", of: b) == 0)
    }

    /// A stream that resumes where its user's entries were passed over gets
    /// its view models anew and every notification since its last event,
    /// read back from the feed by the users' index.
    @Test func aResumeWhereTheUserWasNotServedGetsEveryNotificationOnce() throws {
        let (a, b, nats) = try Self.servers(onBus: true)
        defer { _ = nats }
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
        var lastSeen = ""
        do {
            let stream = try SSEClient(port: a.port, token: bob.token, topics: "chats,badge", timeout: 20)
            lastSeen = try #require(try stream.next(where: { $0.name == "badge" }).id)
        }
        for text in ["away 1", "away 2", "away 3"] {
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#)
        }
        #expect(try eventually { try Self.counter("tailor_feed_entries_passed_over_total", of: b) >= 3 })
        let resumed = try SSEClient(port: b.port, token: bob.token, topics: "chats,badge", lastEventID: lastSeen, timeout: 20)
        var texts: [String] = []
        var sentLive = false
        var badge: Int?
        while texts.last != "live" {
            let event = try resumed.next()
            if event.name == "notification", let text = event.json["text"] as? String { texts.append(text) }
            if event.name == "badge" { badge = event.json["unread"] as? Int }
            if event.name == "chats", !sentLive {
                try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"live"}"#)
                sentLive = true
            }
        }
        #expect(texts == ["away 1", "away 2", "away 3", "live"])
        #expect(badge != nil, "no badge view model anew")
    }
}
