import Foundation
import TailorTestSupport
import Testing

/// Streams that ask for patches (`patch=json`): a topic's first view model is
/// whole, later changes come as JSON Patches against the version before, and
/// applying a stream's events in order always ends at what a fresh read gives.
@Suite struct PatchStreamTests {
    /// Reads events until every topic held equals what `client` reads at its
    /// path now; a stream that never gets there fails at its read timeout.
    private func readUntilCurrent(_ stream: SSEClient, _ views: inout PatchedViews, client: APIClient,
                                  paths: [String: String]) throws -> [SSEClient.Event] {
        var events: [SSEClient.Event] = []
        while true {
            let current = try paths.allSatisfy { topic, path in
                let fresh = try JSONSerialization.jsonObject(with: Data(try client.send("GET", path).body))
                return try views.held[topic] != nil && views.canonical(topic) == PatchedViews.canonical(fresh)
            }
            if current { return events }
            let event = try stream.next()
            events.append(event)
            try views.take(event)
        }
    }

    @Test(arguments: Backend.allCases)
    func aPatchedStreamStartsWholeThenPatchesAndEndsAtAFreshRead(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,chat:\(chatID)", patches: true)
        var views = PatchedViews()
        let first = try (0..<3).map { _ in try stream.next() }
        #expect(first.map(\.name) == ["chats", "badge", "chat"])
        for event in first { try views.take(event) }
        let paths = ["chats": "/api/chats", "badge": "/api/badge", "chat:\(chatID)": "/api/chats/\(chatID)"]
        var events: [SSEClient.Event] = []
        for index in 1...5 {
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"patch \#(index)"}"#)
            // Each read before the next: a change that comes while one of its
            // topic still waits to be written is sent whole in its place.
            events += try readUntilCurrent(stream, &views, client: bob, paths: paths)
        }
        try bob.send("POST", "/api/chats/\(chatID)/read")
        events += try readUntilCurrent(stream, &views, client: bob, paths: paths)
        #expect(events.contains { $0.name == "chat.patch" })
        #expect(views.patchesApplied > 0)
        // A new message on a screen is one addition at the end of its messages.
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"one more"}"#)
        let patch = try stream.next(where: { $0.name == "chat.patch" && $0.data.contains("one more") })
        let operations = try #require(patch.json["patch"] as? [[String: Any]])
        #expect(operations.contains { $0["op"] as? String == "add" && $0["path"] as? String == "/messages/-" })
        #expect(patch.json["topic"] as? String == "chat:\(chatID)")
    }

    @Test(arguments: Backend.allCases)
    func aResumedStreamStartsFromWholeViewModels(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let first = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge", patches: true)
        var views = PatchedViews()
        for _ in 0..<2 { try views.take(try first.next()) }
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"before"}"#)
        _ = try readUntilCurrent(first, &views, client: bob, paths: ["chats": "/api/chats", "badge": "/api/badge"])
        let lastSeen = try #require(views.held["chats"]?.id)
        first.connection.reset()
        // Alice's and Bob's clients stay.
        #expect(app.waitForConnections(atMost: 2))
        #expect(app.application.streamCount == 0)
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"while you were away"}"#)
        let resumed = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge", patches: true, lastEventID: lastSeen)
        // What changed while away comes whole: this stream has been given no version yet.
        let resent = try resumed.next(where: { $0.name != "notification" })
        #expect(!resent.name.hasSuffix(".patch"))
        try views.take(resent)
        _ = try readUntilCurrent(resumed, &views, client: bob, paths: ["chats": "/api/chats", "badge": "/api/badge"])
        // From then on, patches: at the latest after one more whole view model.
        // When the change made while away is published just as the stream
        // resumes (PostgreSQL applies its feed a moment later), the view model
        // it was given may be one no patch names as a base; the next whole
        // one carries a version.
        var patched = false
        for text in ["back", "back again"] where !patched {
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#)
            let events = try readUntilCurrent(resumed, &views, client: bob, paths: ["chats": "/api/chats", "badge": "/api/badge"])
            patched = events.contains { $0.name == "chats.patch" }
        }
        #expect(patched)
    }

    @Test func aSlowReaderGetsWholeViewModelsThenPatchesAgain() throws {
        let app = try TestApp { $0.writeLimit = .unlimited }
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let slow = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,chat:\(chatID)", patches: true, timeout: 10,
                                 receiveBuffer: 32 * 1024)
        var views = PatchedViews()
        for _ in 0..<3 { try views.take(try slow.next()) }
        let sender = try APIClient(port: app.port)
        sender.token = alice.token
        for index in 1...300 {
            try sender.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"change \#(index)"}"#)
        }
        // Its events were replaced while it did not read: what it gets still
        // applies in order and ends at the latest state.
        let paths = ["chats": "/api/chats", "badge": "/api/badge", "chat:\(chatID)": "/api/chats/\(chatID)"]
        _ = try readUntilCurrent(slow, &views, client: bob, paths: paths)
        try sender.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"caught up"}"#)
        let events = try readUntilCurrent(slow, &views, client: bob, paths: paths)
        #expect(events.contains { $0.name == "chat.patch" })
    }

    @Test(arguments: Backend.allCases)
    func anOrderPatchedThenDeletedMidStream(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let id = try #require(try alice.send("POST", "/api/orders", json: OrderAPITests.groceries).json["id"] as? String)
        let stream = try SSEClient(port: app.port, token: alice.token, topics: "orders,order:\(id)", patches: true)
        var views = PatchedViews()
        for _ in 0..<2 { try views.take(try stream.next()) }
        try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"paid"}"#)
        // Every event is applied, those of the list too, while waiting for the order's.
        func nextOfTheOrder() throws -> SSEClient.Event {
            while true {
                let event = try stream.next()
                try views.take(event)
                if event.name == "order" || event.name == "order.patch" { return event }
            }
        }
        let paid = try nextOfTheOrder()
        #expect(paid.name == "order.patch")
        #expect((views.held["order:\(id)"]?.viewModel as? [String: Any])?["status"] as? String == "paid")
        try alice.send("DELETE", "/api/orders/\(id)")
        // Gone: the small whole view model that says so, not a patch.
        let deleted = try nextOfTheOrder()
        #expect(deleted.name == "order")
        #expect(deleted.json["deleted"] as? Bool == true)
        _ = try readUntilCurrent(stream, &views, client: alice, paths: ["orders": "/api/orders"])
    }

    @Test func anUnknownPatchFormatIsRefused() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let response = try alice.send("GET", "/api/events?topics=chats&patch=xml")
        #expect(response.status == 422)
    }
}
