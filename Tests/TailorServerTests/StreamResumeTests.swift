import Foundation
import Testing
import TailorTestSupport

/// What a client that keeps view models between visits relies on: a stream
/// resumed from a position the server no longer remembers (one from before it
/// started) sends every topic whole, changed or not, so the client's stored
/// copies are all replaced by current ones.
@Suite struct StreamResumeTests {
    @Test(arguments: Backend.allCases)
    func aResumeFromBeforeTheServerStartedSendsEveryTopicWhole(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        var kept: (token: String?, lastSeen: String) = (nil, "")
        do {
            let app = try TestApp(backend: backend) { $0.database = location }
            let (alice, bob, chatID) = try app.aliceAndBobInAChat()
            let stream = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,orders", patches: true)
            _ = try stream.next(where: { $0.name == "orders" })
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"before the restart"}"#)
            kept = (bob.token, try stream.next(where: { $0.name == "badge" || $0.name == "badge.patch" }).id!)
        }
        let app = try TestApp(backend: backend) { $0.database = location }
        let resumed = try SSEClient(port: app.port, token: kept.token, topics: "chats,badge,orders", patches: true,
                                    lastEventID: kept.lastSeen)
        let first = try (0..<3).map { _ in try resumed.next() }
        // Whole view models, not patches: the client holds no base on this stream.
        #expect(Set(first.map(\.name)) == ["chats", "badge", "orders"])
        #expect(first.allSatisfy { Int64($0.id!)! >= Int64(kept.lastSeen)! })
    }

    /// Every server restarted between a stream's last event and its resume
    /// (a deploy, a phone in a tunnel meanwhile): the notifications after
    /// that event come all the same, each once, of the messages sent before
    /// the restart and after it. On PostgreSQL two servers, the stream
    /// resumed on the other one.
    @Test(arguments: Backend.allCases)
    func aResumeAfterEveryServerRestartedGetsEveryNotificationAfterItsLastEvent(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        let serverCount = backend == .postgres ? 2 : 1
        var kept: (alice: String?, bob: String?, lastSeen: String) = (nil, nil, "")
        do {
            let apps = try (0..<serverCount).map { _ in try TestApp(backend: backend) { $0.database = location } }
            let (alice, bob, chatID) = try apps[0].aliceAndBobInAChat()
            let stream = try SSEClient(port: apps[0].port, token: bob.token, topics: "chats,badge")
            kept = (alice.token, bob.token, try stream.next(where: { $0.name == "badge" }).id!)
            for text in ["before 1", "before 2", "before 3"] {
                try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#)
            }
        }
        let apps = try (0..<serverCount).map { _ in try TestApp(backend: backend) { $0.database = location } }
        let alice = try APIClient(port: apps[0].port)
        alice.token = kept.alice
        let chatID = try #require((try alice.send("GET", "/api/chats").json["items"] as? [[String: Any]])?.first?["id"] as? String)
        for text in ["after 1", "after 2"] {
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#)
        }
        let resumed = try SSEClient(port: apps[serverCount - 1].port, token: kept.bob, topics: "chats,badge", lastEventID: kept.lastSeen)
        var texts: [String] = []
        var sentLive = false
        while texts.last != "once resumed" {
            let event = try resumed.next()
            if event.name == "notification", let text = event.json["text"] as? String { texts.append(text) }
            // The stream is going: what comes now comes live.
            if event.name == "chats", !sentLive {
                try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"once resumed"}"#)
                sentLive = true
            }
        }
        #expect(texts == ["before 1", "before 2", "before 3", "after 1", "after 2", "once resumed"])
    }
}
