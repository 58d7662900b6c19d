import Foundation
import Glibc
import Synchronization
import TailorTestSupport
import Testing

/// Server-Sent Events over a raw socket, parsed as a browser would.
@Suite struct EventStreamTests {
    @Test(arguments: Backend.allCases)
    func aStreamStartsWithRetryAndEachTopicsViewModel(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (_, bob, chatID) = try app.aliceAndBobInAChat()
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,chat:\(chatID)")
        #expect(stream.response.status == 200)
        #expect(stream.response.header("content-type")?.hasPrefix("text/event-stream") == true)
        #expect(stream.response.header("cache-control") == "no-store")
        #expect(stream.response.header("x-accel-buffering") == "no")
        let events = try (0..<3).map { _ in try stream.next() }
        #expect(stream.retry == 3000)
        #expect(events.map(\.name) == ["chats", "badge", "chat"])
        #expect(events[2].json["id"] as? String == chatID)
        #expect(events[1].json["unread"] as? Int == 0)
        // Each carries the latest position the user's lane had published when
        // it was queued: while the lane publishes the chat's opening, a later
        // topic's may be newer than an earlier one's, never older, since ids
        // never go back along a stream.
        let ids = events.compactMap { $0.id.flatMap(Int64.init) }
        #expect(ids.count == 3)
        #expect(ids == ids.sorted() && ids[0] >= 0)
    }

    @Test(arguments: Backend.allCases)
    func aMessageUpdatesTheOthersListBadgeAndChatLive(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,chat:\(chatID)")
        var lastID: Int64 = 0
        for _ in 0..<3 { lastID = Int64(try stream.next().id!)! }
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"live!"}"#)
        var seen: [String: SSEClient.Event] = [:]
        var ids = Set<Int64>()
        while seen.count < 3 {
            let event = try stream.next()
            let id = try #require(event.id.flatMap(Int64.init))
            #expect(id > lastID, "the message is a later position of the feed")
            ids.insert(id)
            seen[event.name] = event
        }
        #expect(ids.count == 1, "the events of one change share its position")
        #expect(seen["badge"]?.json["unread"] as? Int == 1)
        #expect(((seen["chats"]?.json["items"] as? [[String: Any]])?.first?["message"]) as? String == "live!")
        #expect(((seen["chat"]?.json["messages"] as? [[String: Any]])?.last?["text"]) as? String == "live!")
        #expect(seen["notification"] == nil, "a stream showing the chat gets no banner for it")

        // Bob reads: Alice's open chat shows the read state.
        let aliceStream = try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)")
        _ = try aliceStream.next()
        try bob.send("POST", "/api/chats/\(chatID)/read")
        let update = try aliceStream.next(where: { $0.name == "chat" })
        #expect(((update.json["messages"] as? [[String: Any]])?.last?["state"]) as? String == "read")
    }

    @Test(arguments: Backend.allCases)
    func aStreamNotShowingTheChatGetsANotification(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "orders")
        _ = try stream.next()
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"psst"}"#)
        let banner = try stream.next()
        #expect(banner.name == "notification")
        #expect(banner.json["chatId"] as? String == chatID)
        #expect(banner.json["contact"] as? String == "alice")
        #expect(banner.json["text"] as? String == "psst")
        #expect((banner.json["open"] as? [String: Any])?["href"] as? String == "/api/chats/\(chatID)")
    }

    @Test(arguments: Backend.allCases)
    func theBotsAnswerArrivesLive(_ backend: Backend) throws {
        let app = try TestApp(backend: backend, botDelay: 0.05)
        let alice = try app.user("alice")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bot"}"#).json["id"] as? String)
        let stream = try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)")
        _ = try stream.next()
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"ping"}"#)
        // The bot types before it answers.
        _ = try stream.next(where: { (($0.json["contactStatus"] as? [String: Any])?["state"]) as? String == "typing" })
        let answered = try stream.next(where: { (($0.json["messages"] as? [[String: Any]])?.last?["sender"]) as? String == "other" })
        #expect((answered.json["contactStatus"] as? [String: Any])?["state"] as? String == "online", "the answer ends its typing")
        #expect((((answered.json["messages"] as? [[String: Any]])?.last?["text"]) as? String)?.contains("ping") == true)
    }

    @Test(arguments: Backend.allCases)
    func orderChangesAndDeletionsStream(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let id = try #require(try alice.send("POST", "/api/orders", json: OrderAPITests.groceries).json["id"] as? String)
        let stream = try SSEClient(port: app.port, token: alice.token, topics: "orders,order:\(id)")
        #expect(try stream.next().name == "orders")
        #expect(try stream.next().json["status"] as? String == "placed")
        try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"paid"}"#)
        #expect(try stream.next(where: { $0.name == "order" }).json["status"] as? String == "paid")
        try alice.send("DELETE", "/api/orders/\(id)")
        let deleted = try stream.next(where: { $0.name == "order" })
        #expect(deleted.json["id"] as? String == id)
        #expect(deleted.json["deleted"] as? Bool == true)
        // The stream stays open for its other topics.
        try alice.send("POST", "/api/orders", json: OrderAPITests.groceries)
        // (The list's change for the deletion may come before or after the order's.)
        #expect(try stream.next(where: { $0.name == "orders" && $0.json["count"] as? Int == 1 }).json["count"] as? Int == 1)
    }

    @Test(arguments: Backend.allCases)
    func badTopicsAreRefusedBeforeTheStream(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, _, chatID) = try app.aliceAndBobInAChat()
        let mallory = try app.user("mallory")
        for (token, topics, status) in [(alice.token, "", 400), (alice.token, "weather", 404), (alice.token, "chat:abc", 404),
                                        (mallory.token, "chat:\(chatID)", 404), (mallory.token, "order:1", 404), (nil, "chats", 401)] {
            let stream = try SSEClient(port: app.port, token: token, topics: topics)
            #expect(stream.response.status == status, "\(topics)")
            #expect(stream.response.header("content-type")?.hasPrefix("application/json") == true)
        }
    }

    @Test(arguments: Backend.allCases)
    func heartbeatsKeepAnIdleStreamAlive(_ backend: Backend) throws {
        let app = try TestApp(backend: backend, heartbeat: 0.1)
        let alice = try app.user("alice")
        let stream = try SSEClient(port: app.port, token: alice.token, topics: "badge")
        _ = try stream.next()
        try stream.waitForComments(2)
        #expect(stream.comments >= 2)
    }

    @Test(arguments: Backend.allCases)
    func resumingSendsOnlyWhatChanged(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let first = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,orders")
        // An id past the server's start: a stream subscribed before the lane
        // published the chat's opening has its first events at the start's
        // position, which a resume cannot place, and gets the chat's next.
        let lastSeen = try first.next(where: { Int($0.id ?? "") ?? 0 > 0 }).id!
        first.connection.reset()
        // Alice's and Bob's clients stay.
        #expect(app.waitForConnections(atMost: 2))
        #expect(app.application.streamCount == 0)
        // While Bob is away: a message (touches his chats and badge, not his orders).
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"while you were away"}"#)
        let resumed = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,orders", lastEventID: lastSeen)
        // What changed at the last position seen may come again (the stream
        // may have ended between two of its events), then what followed.
        var events: [SSEClient.Event] = []
        var missing: Set<String> = ["chats", "badge", "notification"]
        while !missing.isEmpty {
            let event: SSEClient.Event
            do {
                event = try resumed.next()
            } catch {
                Issue.record("still missing \(missing) after \(events.map { "\($0.name) \($0.id ?? "-")" }) since \(lastSeen): \(error)")
                throw error
            }
            events.append(event)
            let isNew = switch event.name {
            case "chats": ((event.json["items"] as? [[String: Any]])?.first?["message"]) as? String == "while you were away"
            case "badge": event.json["unread"] as? Int == 1
            default: true
            }
            if isNew { missing.remove(event.name) }
        }
        #expect(!events.contains { $0.name == "orders" }, "his orders did not change")
        #expect(events.allSatisfy { Int64($0.id!)! >= Int64(lastSeen)! })
        // An id it cannot place (not one of this database's) gets everything.
        let unknown = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,orders", lastEventID: "999999999")
        #expect(Set(try (0..<3).map { _ in try unknown.next().name }) == ["chats", "badge", "orders"])
    }

    /// Event ids are feed positions: one change has one id on every stream,
    /// whoever's it is, and positions go on across a restart.
    @Test(arguments: Backend.allCases)
    func oneChangeHasOneIdOnEveryStreamAndIdsGoOnAfterARestart(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        var before: Int64 = 0
        var tokens: (alice: String?, bob: String?, chat: String) = (nil, nil, "")
        do {
            let app = try TestApp(backend: backend) { $0.database = location }
            let (alice, bob, chatID) = try app.aliceAndBobInAChat()
            let aliceStream = try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)")
            let bobStream = try SSEClient(port: app.port, token: bob.token, topics: "badge")
            _ = try aliceStream.next()
            _ = try bobStream.next()
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"one id"}"#)
            // Not an event of bob coming online: the message's.
            let atAlice = try aliceStream.next(where: { $0.name == "chat" && $0.data.contains("one id") })
            let atBob = try bobStream.next(where: { $0.name == "badge" })
            #expect(atAlice.id != nil && atAlice.id == atBob.id)
            before = Int64(atBob.id!)!
            tokens = (alice.token, bob.token, chatID)
        }
        let app = try TestApp(backend: backend) { $0.database = location }
        let stream = try SSEClient(port: app.port, token: tokens.bob, topics: "badge")
        // The view model as of the latest position in use (on SQLite, the last
        // one reserved, which may be past the last one handed out).
        #expect(Int64(try stream.next().id!)! >= before)
        let alice = try app.client()
        alice.token = tokens.alice
        try alice.send("POST", "/api/chats/\(tokens.chat)/messages", json: #"{"text":"after the restart"}"#)
        #expect(Int64(try stream.next(where: { $0.name == "badge" }).id!)! > before)
    }

    @Test func aNewStreamResumesFromTheLastEventIdParameter() throws {
        // A page that opens a new EventSource for other topics cannot send the
        // header; it names the last id it saw in the query instead.
        let app = try TestApp()
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let first = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge")
        _ = try (0..<2).map { _ in try first.next() }
        // The id of a change the stream was sent (initial view models carry
        // the position their lane had published, which may be older).
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"first"}"#)
        let lastSeen = try first.next(where: { $0.name == "badge" && $0.json["unread"] as? Int == 1 }).id!
        first.connection.reset()
        try alice.send("POST", "/api/orders", json: #"{"name":"Tea","items":[{"title":"Tea","quantity":1,"priceCents":300}]}"#)
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"one more"}"#)
        let resumed = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,orders&lastEventId=\(lastSeen)")
        var names = Set<String>()
        while !["badge", "notification"].allSatisfy(names.contains) {
            let event = try resumed.next()
            #expect(Int64(event.id!)! >= Int64(lastSeen)!)
            if event.name != "badge" || event.json["unread"] as? Int == 2 { names.insert(event.name) }
        }
        // Bob's orders did not change (the order is Alice's): not sent again.
        #expect(!names.contains("orders"))
    }

    @Test func aSlowReaderHoldsAtMostOneEventPerTopicAndGetsTheLatest() throws {
        // A thousand changes as fast as they go: past the default rate of writes.
        let app = try TestApp { $0.writeLimit = .unlimited }
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let slow = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,chat:\(chatID)", timeout: 10, receiveBuffer: 32 * 1024)
        let sender = try APIClient(port: app.port)
        sender.token = alice.token
        for index in 1...1000 {
            try sender.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"change \#(index)"}"#)
            #expect(app.application.queuedStreamEvents <= 3)
        }
        // Now it reads, and gets the latest state of each topic (in either order).
        var latestChat = false, latestBadge = false
        while !(latestChat && latestBadge) {
            let event = try slow.next()
            if event.name == "chat", ((event.json["messages"] as? [[String: Any]])?.last?["text"]) as? String == "change 1000" { latestChat = true }
            if event.name == "badge", event.json["unread"] as? Int == 1000 { latestBadge = true }
        }
        _ = bob
    }

    @Test(arguments: Backend.allCases)
    func shutdownEndsStreamsCleanly(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let stream = try SSEClient(port: app.port, token: alice.token, topics: "badge")
        _ = try stream.next()
        app.application.shutdown()
        #expect(stream.waitForEnd())
    }

    /// A client that hangs up between its request and the stream's start,
    /// while nothing of the server waited to hear it, is not kept as a stream
    /// until a heartbeat finds it gone: its hang-up was reported only once.
    @Test(arguments: Backend.allCases)
    func aStreamWhoseClientLeftBeforeItStartedEndsAtOnce(_ backend: Backend) throws {
        let app = try TestApp(backend: backend, heartbeat: 3600)
        let (alice, _, chatID) = try app.aliceAndBobInAChat()
        let client = try RawClient(port: app.port, timeout: 20)
        try client.send("GET /api/events?topics=chats,chat:\(chatID) HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(alice.token!)\r\n\r\n")
        shutdown(client.fd, Int32(SHUT_WR))
        #expect(try client.readHead().status == 200)
        #expect(client.isClosedByServer(), "the stream stayed open after its client left")
        #expect(eventually(timeout: 20) { app.application.streamCount == 0 })
    }

    /// A stream whose reader takes nothing for the write timeout (the idle
    /// timeout) is closed, while the rest of a chunk waits for room.
    @Test func aStreamWhoseReaderStopsIsClosedAfterTheWriteTimeout() throws {
        let app = try TestApp {
            $0.server.idleTimeout = 1
            $0.memoryBudget = 1 << 30
        }
        let (alice, _, chatID) = try app.aliceAndBobInAChat()
        let stuck = try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)", timeout: 10, receiveBuffer: 4096)
        // Its first event is written once it is subscribed.
        _ = try stuck.next()
        let text = "x" + String(repeating: "\\u0001", count: 3999)
        // Each message is 24 KB of JSON in the chat screen: the socket is soon full.
        var sent = 0
        while app.application.streamCount == 1 && sent < 200 {
            #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#).status == 201)
            sent += 1
        }
        // Alice's and Bob's idle clients are closed too, after the idle timeout.
        #expect(app.waitForConnections(atMost: 0, timeout: 10))
        #expect(app.application.streamCount == 0)
        #expect(app.application.heldStreamBytes == 0)
        withExtendedLifetime(stuck) {}
    }

    /// Streams that stop reading while large view models change are ended once
    /// what they hold passes the budget; the memory is given back, and a stream
    /// that reads goes on.
    @Test func slowStreamsPastTheMemoryBudgetAreEnded() throws {
        // Streams: 2 MiB in all, 256 KiB for one user's.
        let app = try TestApp { $0.memoryBudget = 8 << 20 }
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let slow = try (0..<8).map { _ in
            try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)", timeout: 10, receiveBuffer: 4096)
        }
        let reader = try SSEClient(port: app.port, token: bob.token, topics: "badge")
        _ = try reader.next()
        // A letter and 3,999 control characters, each written as six bytes of JSON.
        let text = "x" + String(repeating: "\\u0001", count: 3999)
        for _ in 0..<40 {
            #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#).status == 201)
        }
        // Alice's and Bob's clients and Bob's reader stay.
        #expect(app.waitForConnections(atMost: 3, timeout: 10))
        #expect(app.application.streamCount == 1)
        for stream in slow { #expect(stream.waitForEnd()) }
        var unread = 0
        while unread < 40 { unread = try reader.next().json["unread"] as? Int ?? unread }
        // Every byte any stream held is given back once the reader leaves too.
        reader.connection.reset()
        #expect(app.waitForConnections(atMost: 2, timeout: 10))
        #expect(app.application.heldStreamBytes == 0)
    }

    /// One change of a 24 KB view model to a hundred streams of one user
    /// that read: the event's bytes are shared and counted once, so none of
    /// them passes the user's 256 KiB and none is ended.
    @Test func aFanOutToStreamsThatReadEndsNoneOfThem() throws {
        let app = try TestApp { $0.memoryBudget = 8 << 20 }
        let (alice, _, chatID) = try app.aliceAndBobInAChat()
        let streams = try (0..<100).map { _ in try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)", timeout: 10) }
        for stream in streams { _ = try stream.next() }
        let text = "x" + String(repeating: "\\u0001", count: 3999)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#).status == 201)
        for stream in streams {
            let event = try stream.next()
            #expect((event.json["messages"] as? [[String: Any]])?.count == 1)
        }
        #expect(app.application.streamCount == 100)
    }

    /// Rebuilds (at midnight, after a failed build) take the lanes' ordered
    /// path: raced against a burst of messages, a stream's chat only ever
    /// moves forward.
    @Test func rebuildsNeverSendAnOlderVersionAfterANewerOne() throws {
        let app = try TestApp { $0.writeLimit = .unlimited }
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)", timeout: 10)
        _ = try stream.next()
        let sending = Atomic(true)
        let application = app.application
        for _ in 0..<3 {
            Thread {
                while sending.load(ordering: .relaxed) { application.republishFollowedViewModels() }
            }.start()
        }
        for index in 0..<150 {
            #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"m\#(index)"}"#).status == 201)
        }
        sending.store(false, ordering: .relaxed)
        var newest = -1
        var wentBack: [(Int, Int)] = []
        while newest < 149 {
            let event = try stream.next()
            guard event.name == "chat", let last = (event.json["messages"] as? [[String: Any]])?.last?["text"] as? String,
                  let index = Int(last.dropFirst()) else { continue }
            if index < newest { wentBack.append((newest, index)) }
            newest = max(newest, index)
        }
        #expect(wentBack.isEmpty, "after m\(wentBack.first?.0 ?? 0) came m\(wentBack.first?.1 ?? 0), \(wentBack.count) times")
    }
}
