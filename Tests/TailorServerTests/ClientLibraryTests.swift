import Foundation
import TailorApp
import TailorClient
import TailorStore
import TailorTestSupport
import Testing

/// TailorClient, the library for apps, against a live server on either
/// engine: it decodes every view model, follows topics live across a
/// restart of the server, opens from its store with the server stopped, and
/// sends a message written meanwhile once the server is back.
@Suite struct ClientLibraryTests {
    /// A server on a database that outlives it, so it can stop and start again on its port.
    final class RestartableServer {
        let backend: Backend
        let database: DatabaseLocation
        private(set) var app: TestApp?
        let port: Int

        init(_ backend: Backend) throws {
            self.backend = backend
            database = try TestDatabase.fresh(backend)
            let app = try TestApp(backend: backend, database: database)
            self.app = app
            port = app.port
        }

        var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

        func stop() { app = nil }

        func start() throws {
            app = try TestApp(backend: backend, database: database) { [port] in $0.server.port = port }
        }
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: Backend.allCases)
    func everyViewModelDecodesFromTheServersAnswers(_ backend: Backend) async throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        try bob.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hello alice"}"#)
        let client = TailorClient(baseURL: URL(string: "http://127.0.0.1:\(app.port)")!, token: alice.token)
        #expect(try await client.me().name == "alice")
        let list = try await client.chatList()
        #expect(list.items.first?.contact == "bob" && list.items.first?.message == "hello alice" && list.unreadTotal == 1)
        #expect(try await client.badge().unread == 1)
        let screen = try await client.chat(chatID)
        #expect(screen.messages.map(\.text) == ["hello alice"] && screen.messages[0].sender == "other")
        #expect(screen.actions.block != nil && screen.actions.unblock == nil)
        #expect(try await client.markRead(chatID) == 1)
        let sent = try await client.send("hello bob", to: chatID)
        #expect(sent.text == "hello bob" && sent.sender == "me")
        #expect(try await client.openChat(with: "bob").id == chatID)
        // A connection of its own: the test's first may have idled past the server's keep-alive while the client ran.
        let placed = try app.client(as: alice).send("POST", "/api/orders", json: #"{"name":"Pens","currency":"EUR","items":[{"title":"Pen","quantity":2,"priceCents":150}]}"#)
        let orderID = try #require(placed.json["id"] as? String)
        let orders = try await client.orders()
        #expect(orders.items.map(\.id) == [orderID] && orders.choices.currencies.contains { $0.code == "JPY" && $0.minorUnits == 1 })
        let compact = try await client.orders(.init(layout: "compact", query: "pen"))
        #expect(compact.items.first?.status == nil && compact.items.first?.total == "€3.00")
        let order = try await client.order(orderID)
        #expect(order.lines.map { [$0.title, String($0.quantity), $0.unitPrice, $0.lineTotal] } == [["Pen", "2", "€1.50", "€3.00"]])
        let pay = try #require(order.actions.first { $0.name == "pay" })
        let paid = try await client.perform(pay.action)
        #expect(paid["status"] == .string("paid"))
        // Errors as the server says them.
        await #expect(throws: TailorError(status: 404, code: "not_found", message: "There is no chat with this id for you.")) {
            try await client.chat("999999")
        }
    }

    @Test(arguments: Backend.allCases)
    func updatesGiveTheValueThenEachChange(_ backend: Backend) async throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let client = TailorClient(baseURL: URL(string: "http://127.0.0.1:\(app.port)")!, token: bob.token)
        var screens = client.updates(.chat(chatID)).makeAsyncIterator()
        var badges = client.updates(.badge).makeAsyncIterator()
        #expect(try await screens.next()?.messages == [])
        #expect(try await badges.next()?.unread == 0)
        for text in ["one", "two", "three"] {
            try app.client(as: alice).send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#)
            // Each change, in order: the screen with the new message, the badge counting it.
            #expect(try await screens.next()?.messages.last?.text == text)
        }
        var unread = 0
        while unread < 3 { unread = try #require(try await badges.next()).unread }
        #expect(unread == 3)
    }

    @Test func aNotificationComesForAChatNoTopicShowsAndA401EndsUpdates() async throws {
        let app = try TestApp()
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let client = TailorClient(baseURL: URL(string: "http://127.0.0.1:\(app.port)")!, token: bob.token)
        var notifications = client.notifications().makeAsyncIterator()
        var badges = client.updates(.badge).makeAsyncIterator()
        #expect(try await badges.next()?.unread == 0)
        try app.client(as: alice).send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"psst"}"#)
        let notification = await notifications.next()
        #expect(notification?.chatId == chatID && notification?.contact == "alice" && notification?.text == "psst")
        let stranger = TailorClient(baseURL: URL(string: "http://127.0.0.1:\(app.port)")!, token: "not-a-token")
        var lists = stranger.updates(.chatList).makeAsyncIterator()
        await #expect(throws: TailorError.self) {
            do {
                _ = try await lists.next()
            } catch let error as TailorError {
                #expect(error.status == 401 && error.code == "unauthorized")
                throw error
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aServerRestartMidStreamLosesAndRepeatsNothing(_ backend: Backend) async throws {
        let server = try RestartableServer(backend)
        let (alice, bob, chatID) = try #require(server.app).aliceAndBobInAChat()
        let client = TailorClient(baseURL: server.url, token: bob.token)
        var screens = client.updates(.chat(chatID)).makeAsyncIterator()
        var seen: [[String]] = [try #require(try await screens.next()).messages.map(\.text)]
        try #require(server.app).client(as: alice).send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"before"}"#)
        seen.append(try #require(try await screens.next()).messages.map(\.text))
        server.stop()
        try server.start()
        let again = try #require(server.app).client()
        again.token = alice.token
        try again.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"after"}"#)
        // The stream comes back by itself, from the last event id.
        while seen.last != ["before", "after"] { seen.append(try #require(try await screens.next()).messages.map(\.text)) }
        #expect(seen.first == [] && seen[1] == ["before"])
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 }, "a value came twice: \(seen)")
    }

    @Test(arguments: Backend.allCases)
    func theStoreGivesTheLastValuesWithTheServerStopped(_ backend: Backend) async throws {
        let server = try RestartableServer(backend)
        let (alice, bob, chatID) = try #require(server.app).aliceAndBobInAChat()
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"keep me"}"#)
        let folder = try Self.folder()
        do {
            let client = TailorClient(baseURL: server.url, token: bob.token, store: .directory(folder))
            var lists = client.updates(.chatList).makeAsyncIterator()
            #expect(try await lists.next()?.items.first?.message == "keep me")
        }
        server.stop()
        // The app opens again with the server away: its chats come from the store.
        let client = TailorClient(baseURL: server.url, token: bob.token, store: .directory(folder))
        var lists = client.updates(.chatList).makeAsyncIterator()
        #expect(try await lists.next()?.items.first?.message == "keep me")
        await #expect(throws: TailorError.self) { try await client.chatList() }
    }

    /// The store is one person's: readable by its owner alone, emptied when
    /// it is opened with another token (nothing of the first person is shown
    /// or sent as the second) and when the server says the token is no longer valid.
    @Test func theStoreIsOnePersonsAndForgetsThemForAnother() async throws {
        let server = try RestartableServer(.sqlite)
        let (alice, bob, chatID) = try #require(server.app).aliceAndBobInAChat()
        let carol = try #require(server.app).user("carol")
        let folder = try Self.folder()
        do {
            let client = TailorClient(baseURL: server.url, token: bob.token, store: .directory(folder))
            var lists = client.updates(.chatList).makeAsyncIterator()
            #expect(try await lists.next()?.items.first?.contact == "alice")
        }
        server.stop()
        do {
            let client = TailorClient(baseURL: server.url, token: bob.token, store: .directory(folder))
            await #expect(throws: TailorError.self) { try await client.send("bob's, waiting", to: chatID) }
        }
        let mode = { (path: String) in ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1 }
        #expect(mode(folder.path) == 0o700)
        let files = try #require(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
        for file in files where !file.hasSuffix("views") { #expect(mode(folder.appendingPathComponent(file).path) == 0o600, "\(file)") }
        try server.start()
        // Carol opens the same folder: none of Bob's chats, and his waiting message is not sent as hers.
        let client = TailorClient(baseURL: server.url, token: carol.token, store: .directory(folder))
        #expect(await client.waitingMessages().isEmpty)
        var lists = client.updates(.chatList).makeAsyncIterator()
        #expect(try await lists.next()?.items.isEmpty == true)
        try await client.sendWaiting()
        let reader = try #require(server.app).client()
        reader.token = alice.token
        #expect((try reader.send("GET", "/api/chats/\(chatID)").json["messages"] as? [[String: Any]])?.isEmpty == true)
        // A token the server refuses empties the store.
        let stale = TailorClient(baseURL: server.url, token: "not-a-token", store: .directory(folder))
        await #expect(throws: TailorError.self) { try await stale.chatList() }
        let views = folder.appendingPathComponent("views")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: views.path))?.isEmpty ?? true)
    }

    @Test(arguments: Backend.allCases)
    func aMessageSentWhileTheServerIsDownIsStoredOnceWhenItReturns(_ backend: Backend) async throws {
        let server = try RestartableServer(backend)
        let (alice, bob, chatID) = try #require(server.app).aliceAndBobInAChat()
        let folder = try Self.folder()
        server.stop()
        do {
            let client = TailorClient(baseURL: server.url, token: bob.token, store: .directory(folder))
            let failure = await #expect(throws: TailorError.self) { try await client.send("written offline", to: chatID) }
            #expect(failure?.status == 0)
            #expect(await client.waitingMessages().map(\.text) == ["written offline"])
        }
        try server.start()
        // The app starts again on its store: the message goes when the server answers.
        let client = TailorClient(baseURL: server.url, token: bob.token, store: .directory(folder))
        var screens = client.updates(.chat(chatID)).makeAsyncIterator()
        while try #require(try await screens.next()).messages.map(\.text) != ["written offline"] {}
        try await client.sendWaiting()
        #expect(await client.waitingMessages().isEmpty)
        let reader = try #require(server.app).client()
        reader.token = alice.token
        let messages = try #require(try reader.send("GET", "/api/chats/\(chatID)").json["messages"] as? [[String: Any]])
        #expect(messages.compactMap { $0["text"] as? String } == ["written offline"])
    }
}
