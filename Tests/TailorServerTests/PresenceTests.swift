import Foundation
import Glibc
import Synchronization
import TailorApp
import TailorStore
import TailorTestSupport
import Testing

/// Typing and presence as a contact's screens show them: `contactStatus` in
/// the chat view model and in each chat list item, on one server and across
/// two on PostgreSQL.
@Suite struct PresenceTests {
    private static func status(_ event: SSEClient.Event) -> [String: Any]? {
        if let status = event.json["contactStatus"] as? [String: Any] { return status }
        return ((event.json["items"] as? [[String: Any]])?.first?["contactStatus"]) as? [String: Any]
    }

    private static func state(_ event: SSEClient.Event) -> String? { status(event)?["state"] as? String }

    /// The feed position the server has applied (`/metrics`).
    private static func feedPosition(_ app: TestApp) throws -> Int {
        let metrics = try MetricsTests.scrape(app)
        return Int(try #require(metrics[MetricsTests.Sample(name: "tailor_feed_applied_position", labels: [:])]))
    }

    /// The server's applied feed position once it reaches `least`, or as it is
    /// after 5 s: a stream's event goes out before the thread that applies
    /// the feed counts its entry applied, so a test that saw the event may
    /// read the position a moment early.
    private static func feedPosition(_ app: TestApp, reaching least: Int) throws -> Int {
        _ = try eventually { try feedPosition(app) >= least }
        return try feedPosition(app)
    }

    /// Alice and Bob in a chat where each has written: presence is shown
    /// only between people who talk (`ChatRelations.showsPresence`).
    static func talking(_ app: TestApp) throws -> (alice: APIClient, bob: APIClient, chatID: String) {
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        try Self.talk(alice, bob, in: chatID)
        return (alice, bob, chatID)
    }

    /// Returns the feed position of the last message (`Tailor-Position`).
    @discardableResult
    static func talk(_ alice: APIClient, _ bob: APIClient, in chatID: String) throws -> Int {
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hello bob"}"#).status == 201)
        let last = try bob.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hello alice"}"#)
        #expect(last.status == 201)
        return try #require(last.header("tailor-position").flatMap { Int($0) })
    }

    /// A gauge of `/metrics`, by name.
    private static func gauge(_ name: String, of app: TestApp) throws -> Double? {
        try MetricsTests.scrape(app)[MetricsTests.Sample(name: name, labels: [:])]
    }

    @Test func typingReachesTheContactsScreenAndListAndEndsWithTheMessage() throws {
        let app = try TestApp()
        let (alice, bob, chatID) = try Self.talking(app)
        let screen = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)")
        let list = try SSEClient(port: app.port, token: bob.token, topics: "chats")
        let first = try screen.next()
        #expect(Self.state(first) == "away")
        #expect(Self.status(first)?["text"] is NSNull, "alice never had a stream: no last seen")
        _ = try list.next()

        let typed = try alice.send("POST", "/api/chats/\(chatID)/typing")
        #expect(typed.status == 204)
        let shown = try screen.next(where: { Self.state($0) == "typing" })
        #expect(Self.status(shown)?["text"] as? String == "typing…")
        _ = try list.next(where: { Self.state($0) == "typing" })
        #expect(try alice.get("/api/chats/\(chatID)").json["contactStatus"] as? [String: Any] != nil)

        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"done typing"}"#)
        let withMessage = try screen.next(where: { (($0.json["messages"] as? [[String: Any]])?.last?["text"] as? String) == "done typing" })
        #expect(Self.state(withMessage) == "away", "the message ends the typing at once")
    }

    /// A stream that takes patches gets the status as a patch of the view
    /// model it holds, as any change.
    @Test func aStreamOfPatchesGetsTheStatusAsAPatch() throws {
        let app = try TestApp()
        let (alice, bob, chatID) = try Self.talking(app)
        let screen = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)", patches: true)
        _ = try screen.next()
        try alice.send("POST", "/api/chats/\(chatID)/typing")
        let patch = try screen.next(where: { $0.name == "chat.patch" })
        let operations = try #require(patch.json["patch"] as? [[String: Any]])
        #expect(operations.contains { ($0["path"] as? String)?.hasPrefix("/contactStatus") == true }, "\(patch.data)")
        #expect(!patch.data.contains("\"messages\""), "only the status changed: \(patch.data)")
    }

    @Test func typingEndsByItselfAfterFiveSeconds() throws {
        let app = try TestApp()
        let (alice, bob, chatID) = try Self.talking(app)
        let screen = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)", timeout: 10)
        _ = try screen.next()
        let started = Date()
        try alice.send("POST", "/api/chats/\(chatID)/typing")
        _ = try screen.next(where: { Self.state($0) == "typing" })
        _ = try screen.next(where: { Self.state($0) != "typing" })
        let lasted = Date().timeIntervalSince(started)
        #expect(lasted >= 5, "typing ended after \(lasted) s, before its five")
    }

    @Test func typingInAnotherUsersChatIsNotFoundAndNothingIsStored() throws {
        let app = try TestApp()
        let (alice, _, chatID) = try app.aliceAndBobInAChat()
        let carol = try app.user("carol")
        #expect(try carol.send("POST", "/api/chats/\(chatID)/typing").status == 404)
        #expect(try carol.send("POST", "/api/chats/999999/typing").status == 404)
        #expect(try app.client().send("POST", "/api/chats/\(chatID)/typing").status == 401)
        let before = try Self.feedPosition(app)
        for _ in 1...20 { #expect(try alice.send("POST", "/api/chats/\(chatID)/typing").status == 204) }
        #expect(try Self.feedPosition(app) == before, "typing wrote to the database")
    }

    /// Online while a stream is open; one write (a feed position) when the
    /// last closes, after the grace, and none for streams that come and go
    /// within it.
    @Test func aContactIsOnlineWhileAStreamIsOpenAndLastSeenAfterOneWrite() throws {
        let app = try TestApp { $0.offlineGrace = 0.3 }
        let (alice, bob, chatID) = try Self.talking(app)
        let screen = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)")
        #expect(Self.state(try screen.next()) == "away")
        let before = try Self.feedPosition(app)

        var aliceStream: SSEClient? = try SSEClient(port: app.port, token: alice.token, topics: "badge")
        _ = try aliceStream?.next()
        let online = try screen.next(where: { Self.state($0) == "online" })
        #expect(Self.status(online)?["text"] as? String == "online")
        #expect(try Self.gauge("tailor_presence_users_online", of: app) == 2, "alice and bob, each with a stream")
        // A second stream and a reload within the grace: nothing changes.
        var second: SSEClient? = try SSEClient(port: app.port, token: alice.token, topics: "chats")
        _ = try second?.next()
        aliceStream = nil
        #expect(app.waitForConnections(atMost: 4))
        var reloaded: SSEClient? = try SSEClient(port: app.port, token: alice.token, topics: "badge")
        _ = try reloaded?.next()
        // Sleeps: that nothing is written can only be seen by giving it the time to.
        Thread.sleep(forTimeInterval: 0.6)
        #expect(try Self.feedPosition(app) == before, "streams that open and close wrote to the database")
        #expect(try alice.get("/api/chats/\(chatID)").json["contactStatus"] as? [String: Any] != nil)

        (second, reloaded) = (nil, nil)
        let away = try screen.next(where: { Self.state($0) == "away" })
        let text = try #require(Self.status(away)?["text"] as? String)
        #expect(text.hasPrefix("last seen "), "\(text)")
        let after = try Self.feedPosition(app, reaching: before + 1)
        #expect(after == before + 1, "one write when the last stream closed")
        #expect(try Self.gauge("tailor_presence_users_online", of: app) == 1, "bob")
        // The list shows it too, and the text outlives the server.
        let bobOnList = try bob.get("/api/chats").json
        let item = try #require((bobOnList["items"] as? [[String: Any]])?.first)
        #expect((item["contactStatus"] as? [String: Any])?["text"] as? String == text)
    }

    /// A server that stops records when its users were last seen: after a
    /// restart their contacts see it.
    @Test func aServerThatStopsRecordsItsUsersLastSeen() throws {
        let location = try TestDatabase.fresh(.sqlite)
        var tokens: (bob: String?, chat: String) = (nil, "")
        do {
            let app = try TestApp { $0.database = location }
            let (alice, bob, chatID) = try Self.talking(app)
            let stream = try SSEClient(port: app.port, token: alice.token, topics: "badge")
            _ = try stream.next()
            // Presence hears of a stream after its first event: once it shows
            // alice online, she is one of the users the server has.
            #expect(try eventually { try Self.gauge("tailor_presence_users_online", of: app) == 1 })
            tokens = (bob.token, chatID)
            // The server stops here, with the stream open or in its grace.
        }
        let app = try TestApp { $0.database = location }
        let bob = try app.client()
        bob.token = tokens.bob
        let status = try #require(try bob.get("/api/chats/\(tokens.chat)").json["contactStatus"] as? [String: Any])
        #expect(status["state"] as? String == "away")
        #expect((status["text"] as? String)?.hasPrefix("last seen ") == true, "\(status)")
    }

    @Test func theChatbotIsAlwaysOnline() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let chat = try alice.send("POST", "/api/chats", json: #"{"contact":"bot"}"#).json
        let id = try #require(chat["id"] as? String)
        // No person: shown before it wrote.
        let view = try alice.get("/api/chats/\(id)").json
        #expect((view["contactStatus"] as? [String: Any])?["state"] as? String == "online")
    }

    // MARK: Two servers on PostgreSQL

    /// Typing and presence go between servers as notifications: alice on one
    /// server, bob's screen on the other.
    @Test func typingAndPresenceReachTheOtherServerWithoutAWritePerSignal() throws {
        let location = try TestDatabase.fresh(.postgres)
        let configure: (inout TailorConfiguration) -> Void = { $0.offlineGrace = 0.3 }
        let (a, b) = (try TestApp(database: location, configure: configure), try TestApp(database: location, configure: configure))
        let (alice, bob, chatID) = try a.aliceAndBobInAChat()
        let written = try Self.talk(alice, bob, in: chatID)
        // Once the other server has applied the messages written through the
        // first: until then it does not know that alice wrote, and shows bob
        // no status of hers.
        let before = try Self.feedPosition(b, reaching: written)
        let screen = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chatID),chats")
        for _ in 0..<2 { #expect(Self.state(try screen.next()) == "away") }

        var aliceStream: SSEClient? = try SSEClient(port: a.port, token: alice.token, topics: "badge")
        _ = try aliceStream?.next()
        _ = try screen.next(where: { $0.name == "chat" && Self.state($0) == "online" })

        let sent = Date()
        #expect(try alice.send("POST", "/api/chats/\(chatID)/typing").status == 204)
        _ = try screen.next(where: { $0.name == "chat" && Self.state($0) == "typing" })
        print("typing reached the other server's stream after \(String(format: "%.1f", Date().timeIntervalSince(sent) * 1000)) ms")
        #expect(try Self.feedPosition(b) == before, "typing or a stream wrote to the database")
        #expect(try Self.gauge("tailor_presence_other_servers", of: b) == 1)
        // It ends by itself on the other server too, five seconds on.
        _ = try screen.next(where: { $0.name == "chat" && Self.state($0) == "online" })
        #expect(Date().timeIntervalSince(sent) >= 5, "typing ended before its five seconds")

        aliceStream = nil
        let away = try screen.next(where: { $0.name == "chat" && Self.state($0) == "away" })
        #expect((Self.status(away)?["text"] as? String)?.hasPrefix("last seen ") == true)
        let after = try Self.feedPosition(b, reaching: before + 1)
        #expect(after == before + 1, "one write: the last seen")
    }

    /// A presence connection that the database ends is opened again, and
    /// the servers hear each other as before: what was lost meanwhile is
    /// asked for again (`hello`).
    @Test func presenceCrossesServersAgainAfterItsConnectionsEnd() throws {
        let location = try TestDatabase.fresh(.postgres)
        let (a, b) = (try TestApp(database: location), try TestApp(database: location))
        let (alice, bob, chatID) = try Self.talking(a)
        let screen = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chatID)", timeout: 15)
        _ = try screen.next()
        let aliceStream = try SSEClient(port: a.port, token: alice.token, topics: "badge")
        _ = try aliceStream.next()
        _ = try screen.next(where: { Self.state($0) == "online" })

        try TestDatabase.dropConnections(to: location, suffix: "-presence")
        // Signals sent before the connections are back are lost: typing is
        // said again, as the page does every 3 s, until it is heard.
        let typed = DispatchQueue(label: "typing")
        let stop = Mutex(false)
        typed.async {
            // As a composer does while text is typed.
            var pace = Pace(every: 0.3)
            while !stop.withLock({ $0 }) {
                _ = try? alice.send("POST", "/api/chats/\(chatID)/typing")
                pace.wait()
            }
        }
        defer { stop.withLock { $0 = true }; typed.sync {} }
        _ = try screen.next(where: { Self.state($0) == "typing" })
        #expect(try Self.gauge("tailor_presence_other_servers", of: b) == 1)
        _ = aliceStream
    }

    /// A server killed with a user's only stream takes them with it: the
    /// other server shows them last seen once the dead one's lifetime is over.
    @Test func aKilledServersUsersAreLastSeenOnTheOtherWithinItsLifetime() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let arguments = ["--db", url, "--presence-lifetime", "1.5", "--offline-grace", "0.3"]
        let doomed = try ShutdownTests.RunningServer(arguments: arguments)
        let survivor = try ShutdownTests.RunningServer(arguments: arguments)
        defer { kill(survivor.process.processIdentifier, SIGTERM); _ = survivor.waitForExit(timeout: 20) }
        let alice = try APIClient.signedUp("alice", port: doomed.port)
        let bob = try APIClient.signedUp("bob", port: survivor.port)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let written = try Self.talk(alice, bob, in: chatID)
        // Named, the position makes the survivor answer once it knows that
        // alice wrote, which shows bob her presence.
        let screen = try SSEClient(port: survivor.port, token: bob.token, topics: "chat:\(chatID)", timeout: 15,
                                   headers: ["Tailor-Position: \(written)"])
        #expect(Self.state(try screen.next()) == "away")
        let aliceStream = try SSEClient(port: doomed.port, token: alice.token, topics: "badge")
        _ = try aliceStream.next()
        _ = try screen.next(where: { Self.state($0) == "online" })

        kill(doomed.process.processIdentifier, SIGKILL)
        let killed = Date()
        doomed.process.waitUntilExit()
        let away = try screen.next(where: { Self.state($0) == "away" })
        let after = Date().timeIntervalSince(killed)
        print("a killed server's user was shown last seen after \(Int(after * 1000)) ms (lifetime 1.5 s)")
        #expect((Self.status(away)?["text"] as? String)?.hasPrefix("last seen ") == true)
        #expect(after >= 1.0, "not before the dead server's lifetime")
    }
}
