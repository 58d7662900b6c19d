import Foundation
import Synchronization
import TailorFeed
import TailorStore
import TailorTestSupport
import Testing

/// Two servers on one PostgreSQL database, each spoken to directly: what one
/// is told, the other shows and streams, with the same event ids.
@Suite struct MultiInstanceTests {
    /// Two servers on one fresh database.
    private func twoServers(botDelay: Double = 0.05) throws -> (TestApp, TestApp) {
        let location = try TestDatabase.fresh(.postgres)
        return (try TestApp(database: location, botDelay: botDelay), try TestApp(database: location, botDelay: botDelay))
    }


    static func chat(between alice: APIClient, and contact: String) throws -> String {
        try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"\#(contact)"}"#).json["id"] as? String)
    }

    /// Reads `stream` until, for each name of `wanted`, an event of that name
    /// meets its condition; the first such of each. Events in between (a
    /// server that applied the feed's earlier entries late) are passed over.
    private func first(_ wanted: [String: (SSEClient.Event) -> Bool], on stream: SSEClient) throws -> [String: SSEClient.Event] {
        var found: [String: SSEClient.Event] = [:]
        while found.count < wanted.count {
            let event = try stream.next()
            if found[event.name] == nil, wanted[event.name]?(event) == true { found[event.name] = event }
        }
        return found
    }

    private func lastText(_ event: SSEClient.Event) -> String? {
        ((event.json["messages"] as? [[String: Any]])?.last?["text"]) as? String
    }

    @Test func aMessageSentThroughOneServerReachesStreamsOnBothWithOneId() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try Self.chat(between: alice, and: "bob")
        let onA = try SSEClient(port: a.port, token: bob.token, topics: "badge,chat:\(chatID)")
        let onB = try SSEClient(port: b.port, token: bob.token, topics: "badge,chat:\(chatID)")
        for stream in [onA, onB] { _ = try (0..<2).map { _ in try stream.next() } }
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"across"}"#)
        let arrival: [String: (SSEClient.Event) -> Bool] = ["badge": { $0.json["unread"] as? Int == 1 },
                                                            "chat": { self.lastText($0) == "across" }]
        let onAEvents = try first(arrival, on: onA)
        let onBEvents = try first(arrival, on: onB)
        #expect(onAEvents["chat"]?.id != nil && onAEvents["chat"]?.id == onBEvents["chat"]?.id)
        #expect(onAEvents["badge"]?.id == onBEvents["badge"]?.id)
    }

    /// A server's own commits come to its follower from its writer, the other
    /// server's in their notifications: neither makes it read the feed.
    @Test func aServerAppliesItsOwnAndTheOtherServersCommitsWithoutAReadEach() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        _ = try a.user("bob")
        let chatID = try Self.chat(between: alice, and: "bob")
        let aliceOnB = try b.client()
        aliceOnB.token = alice.token
        func reads() throws -> Double {
            try #require(try MetricsTests.scrape(a)[MetricsTests.Sample(name: "tailor_feed_reads_total", labels: [:])])
        }
        func applies() throws -> Double {
            try #require(try MetricsTests.scrape(a)[MetricsTests.Sample(name: "tailor_feed_applies_total", labels: [:])])
        }
        let before = try reads()
        let started = Date()
        for index in 1...40 { try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"own \#(index)"}"#) }
        let afterOwn = try reads()
        // Without a read per commit: only the poll's (and one or two the
        // start of either server asked for), however long a busy machine
        // took for the forty. A read per commit would be forty more.
        let polls = (Date().timeIntervalSince(started) / FeedFollower.pollInterval.inSeconds).rounded(.down)
        #expect(afterOwn - before <= polls + 5, "\(afterOwn - before) reads in \(polls) polls' time")
        // The other server's commits come with their entries in their
        // notifications: applied without a read of their own either.
        let startedOther = Date()
        let appliesBefore = try applies()
        for index in 1...40 { try aliceOnB.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"other \#(index)"}"#) }
        let stream = try SSEClient(port: a.port, token: alice.token, topics: "chat:\(chatID)")
        _ = try stream.next(where: { lastText($0) == "other 40" })
        let otherPolls = (Date().timeIntervalSince(startedOther) / FeedFollower.pollInterval.inSeconds).rounded(.down)
        let afterOther = try reads()
        #expect(afterOther - afterOwn <= otherPolls + 5, "\(afterOther - afterOwn) reads in \(otherPolls) polls' time")
        // Each apply took one or more of them, and is counted.
        let appliedOther = try applies() - appliesBefore
        #expect(appliedOther >= 1 && appliedOther <= 40, "\(appliedOther) applies")
    }

    /// Commits handed from the writer to the follower while it applies
    /// others: each is applied with a snapshot that shows it, so that the
    /// kept chats read for it hold it.
    @Test func pairsOpeningChatsAtOnceEachSeeTheirChatListed() throws {
        let app = try TestApp(database: try TestDatabase.fresh(.postgres))
        let pairs = try (0..<24).map { index in (try app.user("open\(index)"), "contact\(index)", try app.user("contact\(index)")) }
        let openers = pairs.map { opener, contactName, _ in
            Thread { _ = try? opener.send("POST", "/api/chats", json: #"{"contact":"\#(contactName)"}"#) }
        }
        for opener in openers { opener.start() }
        for (opener, _, contact) in pairs {
            for client in [opener, contact] {
                let items = try client.waitFor(topic: "chats") { ($0["items"] as? [[String: Any]])?.count == 1 }["items"]
                #expect((items as? [[String: Any]])?.count == 1)
            }
        }
    }

    /// Each commit is followed by every server and each server's writes
    /// come more slowly: the writer of one of two rests twice as long.
    @Test func aWriterRestsLongerForEachServerFollowingTheDatabase() throws {
        let location = try TestDatabase.fresh(.postgres)
        let a = try TestApp(database: location)
        let rest = MetricsTests.Sample(name: "tailor_writer_commit_rest_seconds", labels: [:])
        let alone = try #require(try MetricsTests.scrape(a)[rest])
        #expect(alone > 0)
        let b = try TestApp(database: location)
        let others = MetricsTests.Sample(name: "tailor_presence_other_servers", labels: [:])
        let two = try withExtendedLifetime(b) { try MetricsTests.scrape(a) { $0[others] == 1 } }
        #expect(abs((two[rest] ?? 0) - 2 * alone) < 1e-9)
    }

    @Test func aStreamReadOnOneServerResumesOnTheOtherWithWhatFollowed() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try Self.chat(between: alice, and: "bob")
        let first = try SSEClient(port: a.port, token: bob.token, topics: "chats,badge,orders")
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"seen"}"#)
        let seen = try first.next(where: { $0.name == "badge" && $0.json["unread"] as? Int == 1 })
        first.connection.reset()
        let aliceOnB = try b.client(as: alice)
        try aliceOnB.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"missed"}"#)
        let resumed = try SSEClient(port: b.port, token: bob.token, topics: "chats,badge,orders", lastEventID: seen.id)
        // Read until the badge counts both; the banner of the one seen is not sent again.
        var notifications: [String] = []
        var badge: SSEClient.Event?
        var list: SSEClient.Event?
        var ids: [Int64] = []
        while badge?.json["unread"] as? Int != 2 || notifications.isEmpty || list == nil {
            let event = try resumed.next()
            ids += event.id.flatMap { Int64($0) }.map { [$0] } ?? []
            switch event.name {
            case "badge": badge = event
            case "notification": notifications.append(event.json["text"] as? String ?? "")
            case "chats" where ((event.json["items"] as? [[String: Any]])?.first?["message"]) as? String == "missed": list = event
            default: break
            }
        }
        // An initial event carries the position its lane has published, which
        // under load may still be the one resumed from: a later resume repeats
        // it, never skips it. Along the stream ids only go forward.
        #expect(ids == ids.sorted())
        #expect(notifications == ["missed"])
    }

    @Test func writersOnBothServersAtOnceLeaveEveryStreamInOrderAndCurrent() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try Self.chat(between: alice, and: "bob")
        let bobOnB = try b.client(as: bob)
        let streams = [try SSEClient(port: a.port, token: bob.token, topics: "chats,badge,chat:\(chatID)"),
                       try SSEClient(port: b.port, token: alice.token, topics: "chats,badge,chat:\(chatID)")]
        for stream in streams { _ = try (0..<3).map { _ in try stream.next() } }
        let count = 30
        let writers = [(alice, "a"), (bobOnB, "b")].map { client, name in
            Thread {
                for index in 0..<count {
                    _ = try? client.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(name)\#(index)"}"#)
                }
            }
        }
        for writer in writers { writer.start() }
        // The chat screen shows the latest messages: both writers' last ones among them.
        let fresh = try a.client(as: alice).waitFor(topic: "chat:\(chatID)") { view in
            let texts = Set((view["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String })
            return texts.isSuperset(of: ["a\(count - 1)", "b\(count - 1)"])
        }
        let expected = try #require(fresh["messages"] as? [[String: Any]]).map { $0["id"] as? String }
        for stream in streams {
            var lastID: Int64 = 0
            var shown: [String?] = []
            while shown != expected {
                let event = try stream.next()
                let id = try #require(event.id.flatMap(Int64.init))
                #expect(id >= lastID, "ids never go back along a stream")
                lastID = id
                if event.name == "chat" { shown = (event.json["messages"] as? [[String: Any]] ?? []).map { $0["id"] as? String } }
            }
        }
    }

    /// The same order paid through both servers at once: one wins, the other
    /// is told the order moved on (409), and both servers show the winner.
    @Test func anOrderMovedThroughBothServersAtOnceMovesOnce() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let clients = [alice, try b.client(as: alice)]
        let rounds = 20
        var statuses: [[Int]] = []
        for _ in 0..<rounds {
            let id = try #require(try alice.send("POST", "/api/orders", json: OrderAPITests.groceries).json["id"] as? String)
            let start = DispatchSemaphore(value: 0)
            let answered = DispatchGroup()
            let codes = Mutex<[Int]>([])
            for client in clients {
                answered.enter()
                Thread {
                    start.wait()
                    let code = (try? client.send("PATCH", "/api/orders/\(id)", json: #"{"status":"paid"}"#).status) ?? 0
                    codes.withLock { $0.append(code) }
                    answered.leave()
                }.start()
            }
            for _ in clients { start.signal() }
            answered.wait()
            statuses.append(codes.withLock { $0.sorted() })
            for client in clients {
                let order = try client.waitFor(topic: "order:\(id)") { $0["status"] as? String == "paid" }
                #expect(order["status"] as? String == "paid")
            }
        }
        #expect(statuses == Array(repeating: [200, 409], count: rounds))
    }

    @Test func aClientIdRetriedOnTheOtherServerIsStoredOnce() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        _ = try a.user("bob")
        let chatID = try Self.chat(between: alice, and: "bob")
        let first = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"once","clientId":"retry-1"}"#)
        let retry = try b.client(as: alice).send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"once","clientId":"retry-1"}"#)
        #expect(first.status == 201)
        #expect(retry.status == 200)
        #expect(first.json["id"] as? String == retry.json["id"] as? String)
        let view = try alice.waitFor(topic: "chat:\(chatID)") { ($0["messages"] as? [Any])?.count == 1 }
        #expect((view["messages"] as? [Any])?.count == 1)
    }

    /// A message whose entry is too large for PostgreSQL's notification
    /// (8,000 bytes) reaches the other server all the same, read back from
    /// the feed, and `/metrics` counts it; a small one is carried.
    @Test func anEntryTooLargeForItsNotificationIsReadBackFromTheFeed() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let bob = try b.client(as: try a.user("bob"))
        let chatID = try Self.chat(between: alice, and: "bob")
        let stream = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chatID)", timeout: 20)
        func read() throws -> Double {
            try MetricsTests.scrape(b)[MetricsTests.Sample(name: "tailor_feed_entries_read_total", labels: [:])] ?? 0
        }
        func shown(_ text: String) throws {
            _ = try stream.next { (($0.json["messages"] as? [[String: Any]])?.last?["text"] as? String) == text }
        }
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"small"}"#)
        try shown("small")
        let readBefore = try read()
        // 4,000 characters of three bytes each: 12,000 bytes.
        let large = String(repeating: "€", count: 4000)
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: "{\"text\":\"\(large)\"}")
        try shown(large)
        #expect(try read() >= readBefore + 1, "the large entry was not read back")
    }

    @Test func theBotAnswersEachMessageOnceThroughEitherServer() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let aliceOnB = try b.client(as: alice)
        let chatID = try Self.chat(between: alice, and: "bot")
        for (index, client) in [alice, aliceOnB, alice, aliceOnB].enumerated() {
            try client.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"question \#(index)?"}"#)
        }
        let answered = try alice.waitFor(topic: "chat:\(chatID)") { ($0["messages"] as? [Any])?.count == 8 }
        #expect((answered["messages"] as? [Any])?.count == 8)
        // Both servers heard every message (the other one may apply the last a moment later);
        // a late second answer would show.
        func countOnB() throws -> Int? { (try aliceOnB.get("/api/chats/\(chatID)").json["messages"] as? [Any])?.count }
        #expect(try eventually(timeout: 20) { try countOnB() == 8 })
        #expect(try throughout(0.3, interval: 0.05) { try countOnB() == 8 })
    }

    @Test func requestsAlternatingBetweenServersReadTheirWrites() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let bob = try a.user("bob")
        let chatID = try Self.chat(between: alice, and: "bob")
        let aliceOnB = try b.client(as: alice)
        let bobOnB = try b.client(as: bob)
        for index in 0..<10 {
            let (writer, reader, bobThere) = index % 2 == 0 ? (alice, aliceOnB, bobOnB) : (aliceOnB, alice, bob)
            let sent = try writer.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"m\#(index)"}"#)
            let position = try #require(sent.header("tailor-position"))
            #expect(sent.header("set-cookie")?.hasPrefix("tailor_position=\(position);") == true)
            // A script sends the header; a browser the cookie.
            let view = try reader.get("/api/chats/\(chatID)", headers: ["Tailor-Position: \(position)"]).json
            #expect(((view["messages"] as? [[String: Any]])?.last?["text"]) as? String == "m\(index)")
            let badge = try bobThere.get("/api/badge", headers: ["Cookie: tailor_position=\(position)"]).json
            #expect(badge["unread"] as? Int == index + 1)
            let list = try bobThere.get("/api/chats", headers: ["Cookie: tailor_position=\(position)"]).json
            #expect(((list["items"] as? [[String: Any]])?.first?["message"]) as? String == "m\(index)")
        }
    }

    /// A request that carries a position the server has not applied yet waits
    /// for it: here the server's feed is cut off as the write commits through
    /// the other; one past everything in the database is not waited for.
    @Test func aRequestWaitsForThePositionItCarries() throws {
        let location = try TestDatabase.fresh(.postgres)
        let (a, b) = (try TestApp(database: location), try TestApp(database: location))
        let alice = try a.user("alice")
        _ = try a.user("bob")
        let chatID = try Self.chat(between: alice, and: "bob")
        try TestDatabase.dropConnections(to: location, suffix: "-feed")
        let sent = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"later"}"#)
        let position = try #require(sent.header("tailor-position").flatMap { Int($0) })
        let aliceOnB = try b.client(as: alice)
        let view = try aliceOnB.get("/api/chats/\(chatID)", headers: ["Tailor-Position: \(position)"]).json
        #expect(((view["messages"] as? [[String: Any]])?.last?["text"]) as? String == "later")
        let unknown = try aliceOnB.get("/api/chats/\(chatID)", headers: ["Tailor-Position: \(position + 1000)"])
        #expect(unknown.status == 200)
    }

    @Test func signingOutOnOneServerEndsTheSessionOnTheOther() throws {
        let (a, b) = try twoServers()
        let alice = try a.user("alice")
        let signIn = try a.client().send("POST", "/api/session", json: #"{"token":"\#(alice.token!)"}"#)
        let cookie = try #require(signIn.header("set-cookie")?.split(separator: ";").first.map(String.init))
        let onB = try b.client()
        // Now B remembers the session's token.
        #expect(try onB.get("/api/me", headers: ["Cookie: \(cookie)"]).status == 200)
        let signOut = try a.client().send("DELETE", "/api/session", headers: ["Cookie: \(cookie)"])
        #expect(signOut.status == 204)
        let position = try #require(signOut.header("tailor-position"))
        #expect(try onB.get("/api/me", headers: ["Cookie: \(cookie); tailor_position=\(position)"]).status == 401)
        // The account's own token still works.
        #expect(try b.client(as: alice).get("/api/me").status == 200)
    }
}
