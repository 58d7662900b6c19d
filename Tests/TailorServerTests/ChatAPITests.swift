import Foundation
import Synchronization
import TailorTestSupport
import Testing

/// Chats, messages, read receipts, the badge, the chatbot, and isolation.
@Suite struct ChatAPITests {
    @Test(arguments: Backend.allCases)
    func openingAChatIsOncePerPair(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let bob = try app.user("bob")
        let created = try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["title"] as? String == "bob")
        let id = try #require(created.json["id"] as? String)
        let again = try bob.send("POST", "/api/chats", json: #"{"contact":"ALICE"}"#)
        #expect(again.status == 200)
        #expect(again.json["id"] as? String == id)
        #expect(again.json["title"] as? String == "alice")

        let unknown = try alice.send("POST", "/api/chats", json: #"{"contact":"nobody"}"#)
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "unknown_contact")
        #expect(try alice.send("POST", "/api/chats", json: #"{"contact":"alice"}"#).status == 422)
        #expect(try alice.send("POST", "/api/chats", json: #"{"contact":7}"#).status == 422)
    }

    /// Writes that arrive together are committed together: refused ones
    /// (another pair's chat, an order moved the wrong way) among them take
    /// nothing with them, and lose nothing of the others.
    @Test(arguments: Backend.allCases)
    func refusedWritesAmongOthersLeaveTheOthersStored(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let carol = try app.user("carol")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let orderID = try #require(try carol.send("POST", "/api/orders", json: OrderAPITests.groceries).json["id"] as? String)
        let rounds = 30
        let statuses = Mutex<[String: [Int]]>([:])
        let done = DispatchGroup()
        let writers: [(String, APIClient, @Sendable (Int) -> (String, String, String))] = [
            ("sent", alice, { ("POST", "/api/chats/\(chatID)/messages", #"{"text":"m\#($0)"}"#) }),
            ("foreign chat", try app.client(as: carol), { ("POST", "/api/chats/\(chatID)/messages", #"{"text":"x\#($0)"}"#) }),
            ("wrong move", try app.client(as: carol), { _ in ("PATCH", "/api/orders/\(orderID)", #"{"status":"delivered"}"#) }),
        ]
        for (name, client, request) in writers {
            done.enter()
            Thread {
                for round in 0..<rounds {
                    let (method, path, body) = request(round)
                    let status = (try? client.send(method, path, json: body).status) ?? 0
                    statuses.withLock { $0[name, default: []].append(status) }
                }
                done.leave()
            }.start()
        }
        done.wait()
        let seen = statuses.withLock { $0 }
        #expect(seen["sent"] == Array(repeating: 201, count: rounds))
        #expect(seen["foreign chat"] == Array(repeating: 404, count: rounds))
        #expect(seen["wrong move"] == Array(repeating: 409, count: rounds))
        let view = try alice.get("/api/chats/\(chatID)").json
        #expect((view["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } == (0..<rounds).map { "m\($0)" })
        #expect(try carol.get("/api/orders/\(orderID)").json["status"] as? String == "placed")
    }

    @Test(arguments: Backend.allCases)
    func aMessageReachesTheOtherSideWithCountsAndBadge(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let bob = try app.user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        #expect(try bob.get("/api/badge").json["unread"] as? Int == 0)
        let sent = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"  Hi Bob!  ","clientId":"c-1"}"#)
        #expect(sent.status == 201)
        let message = try #require(sent.json["message"] as? [String: Any])
        #expect(message["text"] as? String == "Hi Bob!")
        #expect(message["sender"] as? String == "me")
        #expect(message["state"] as? String == "sent")

        let list = try bob.get("/api/chats").json
        #expect(list["unreadTotal"] as? Int == 1)
        let item = try #require((list["items"] as? [[String: Any]])?.first)
        #expect(item["contact"] as? String == "alice")
        #expect(item["message"] as? String == "Hi Bob!")
        #expect(item["unreadMessageCount"] as? Int == 1)
        #expect(try bob.get("/api/badge").json["unread"] as? Int == 1)
        let bobsView = try bob.get("/api/chats/\(chatID)").json
        #expect(((bobsView["messages"] as? [[String: Any]])?.first?["sender"]) as? String == "other")

        // Bob reads: his counts drop, Alice sees the read state.
        let read = try bob.send("POST", "/api/chats/\(chatID)/read")
        #expect(read.json["read"] as? Int == 1)
        #expect(try bob.send("POST", "/api/chats/\(chatID)/read").json["read"] as? Int == 0)
        #expect(try bob.get("/api/badge").json["unread"] as? Int == 0)
        let alicesView = try alice.get("/api/chats/\(chatID)").json
        #expect(((alicesView["messages"] as? [[String: Any]])?.first?["state"]) as? String == "read")
    }

    @Test(arguments: Backend.allCases)
    func theSameClientIdIsStoredOnce(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let first = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"once","clientId":"retry-1"}"#)
        let retry = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"once","clientId":"retry-1"}"#)
        #expect(first.status == 201)
        #expect(retry.status == 200)
        #expect((retry.json["message"] as? [String: Any])?["id"] as? String == (first.json["message"] as? [String: Any])?["id"] as? String)
        #expect((try alice.get("/api/chats/\(chatID)").json["messages"] as? [Any])?.count == 1)
    }

    @Test(arguments: [
        (#"{"text":"   "}"#, 422), (#"{"text":""}"#, 422), (#"{}"#, 422), (#"{"text":1}"#, 422),
        (#"{"text":"ok","clientId":5}"#, 422), (#"not json"#, 400), (#""just a string""#, 422),
    ])
    func badMessagesAreRefusedAndStoreNothing(body: String, status: Int) throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: body).status == status)
        #expect((try alice.get("/api/chats/\(chatID)").json["messages"] as? [Any])?.isEmpty == true)
    }

    @Test(arguments: Backend.allCases)
    func textLengthCountsCharacters(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let longest = String(repeating: "é", count: 4000)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(longest)"}"#).status == 201)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(longest)x"}"#).status == 422)
    }

    /// One character can be a megabyte: a letter with combining accents. Texts
    /// are limited in bytes of UTF-8 too, whatever their count of characters.
    @Test(arguments: Backend.allCases)
    func textsAreLimitedInBytesToo(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let accents = String(repeating: "\u{301}", count: 20_000)
        let oneCharacter = "e" + accents
        #expect(oneCharacter.count == 1)
        let message = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(oneCharacter)"}"#)
        #expect(message.status == 422)
        #expect(message.text.contains("bytes"))
        let clientID = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hi","clientId":"\#(oneCharacter)"}"#)
        #expect(clientID.status == 422)
        let order = try alice.send("POST", "/api/orders", json: #"{"name":"\#(oneCharacter)","items":[{"title":"t","quantity":1,"priceCents":1}]}"#)
        #expect(order.status == 422)
        let title = try alice.send("POST", "/api/orders", json: #"{"name":"n","items":[{"title":"\#(oneCharacter)","quantity":1,"priceCents":1}]}"#)
        #expect(title.status == 422)
        #expect(title.text.contains("items[0].title"))
        #expect((try alice.get("/api/chats/\(chatID)").json["messages"] as? [Any])?.isEmpty == true)
    }

    /// A text of invisible characters only (zero widths, joiners, direction
    /// marks, tags) shows nothing: it is refused like an empty one; with a
    /// visible character it is kept whole.
    @Test func textsOfInvisibleCharactersOnlyAreRefused() throws {
        let app = try TestApp()
        let (alice, _, chatID) = try app.aliceAndBobInAChat()
        for invisible in ["\u{200B}", "\u{2060}", "\u{FEFF}", "\u{202E}", "\u{180E}", "\u{E0020}", "\u{200B} \u{200D}\u{2060}"] {
            let message = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(invisible)"}"#)
            #expect(message.status == 422, "\(invisible.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(message.text.contains("visible"))
        }
        let order = try alice.send("POST", "/api/orders", json: #"{"name":"\u200B","items":[{"title":"t","quantity":1,"priceCents":1}]}"#)
        #expect(order.status == 422)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\u200Bhi"}"#).status == 201)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"👍🏽"}"#).status == 201)
        #expect((try alice.get("/api/chats/\(chatID)").json["messages"] as? [Any])?.count == 2)
    }

    /// Long messages: a page holds the newest that fit in its byte cap, and
    /// `earlier` leads to the rest; the list shows a preview of the last one.
    @Test(arguments: Backend.allCases)
    func noChatViewModelGrowsPastItsCap(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        // A letter and 3,999 control characters: 24 KB of JSON each, 960 KB for the forty.
        let text = "x" + String(repeating: "\\u0001", count: 3999)
        for _ in 0..<40 {
            #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#).status == 201)
        }
        var href: String? = "/api/chats/\(chatID)"
        var seen = 0
        while let next = href {
            let page = try alice.get(next)
            #expect(page.body.count < 600 * 1024)
            seen += (page.json["messages"] as? [Any])?.count ?? 0
            href = (page.json["earlier"] as? [String: Any])?["href"] as? String
        }
        #expect(seen == 40)
        let list = try alice.get("/api/chats")
        #expect(list.body.count < 4096)
        let preview = try #require(((list.json["items"] as? [[String: Any]])?.first?["message"]) as? String)
        #expect(preview.count == 200 && preview.hasSuffix("…"))
    }

    @Test(arguments: Backend.allCases)
    func theChatListComesInPagesThatFollowNext(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        for name in ["bob", "carol", "dave"] {
            _ = try app.user(name)
            #expect(try alice.send("POST", "/api/chats", json: #"{"contact":"\#(name)"}"#).status == 201)
        }
        var href: String? = "/api/chats?limit=2"
        var contacts: [String] = []
        while let next = href {
            let page = try alice.get(next).json
            contacts += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["contact"] as? String }
            href = (page["next"] as? [String: Any])?["href"] as? String
        }
        #expect(contacts == ["dave", "carol", "bob"])
        #expect(try alice.get("/api/chats").json["next"] is NSNull)
        for query in ["limit=0", "limit=201", "offset=-1"] {
            #expect(try alice.get("/api/chats?\(query)").status == 422, "\(query)")
        }
    }

    @Test(arguments: Backend.allCases)
    func pagesGoBackWithEarlier(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        for index in 1...7 {
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"m\#(index)"}"#)
        }
        let latest = try alice.get("/api/chats/\(chatID)?limit=3").json
        #expect((latest["messages"] as? [[String: Any]])?.map { $0["text"] as! String } == ["m5", "m6", "m7"])
        let earlier = try #require((latest["earlier"] as? [String: Any])?["href"] as? String)
        let before = try alice.get(earlier).json
        #expect((before["messages"] as? [[String: Any]])?.map { $0["text"] as! String } == ["m2", "m3", "m4"])
        let first = try alice.get(try #require((before["earlier"] as? [String: Any])?["href"] as? String)).json
        #expect((first["messages"] as? [[String: Any]])?.map { $0["text"] as! String } == ["m1"])
        #expect(first["earlier"] is NSNull)
        #expect(try alice.get("/api/chats/\(chatID)?limit=201").status == 422)
        #expect(try alice.get("/api/chats/\(chatID)?limit=x").status == 422)
    }

    @Test(arguments: Backend.allCases)
    func theChatListPutsTheNewestActivityFirst(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        _ = try app.user("carol")
        let withBob = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        _ = try alice.send("POST", "/api/chats", json: #"{"contact":"carol"}"#)
        #expect((try alice.get("/api/chats").json["items"] as? [[String: Any]])?.map { $0["contact"] as! String } == ["carol", "bob"])
        // Times are in milliseconds, and a tie goes to the newer chat: the
        // message must come at least a millisecond after carol's chat did.
        let chatsMade = Date()
        #expect(eventually { Date().timeIntervalSince(chatsMade) >= 0.002 })
        try alice.send("POST", "/api/chats/\(withBob)/messages", json: #"{"text":"later"}"#)
        let list = try alice.get("/api/chats").json
        let items = try #require(list["items"] as? [[String: Any]])
        #expect(items.map { $0["contact"] as! String } == ["bob", "carol"])
        #expect(items[1]["lastMessageAt"] is NSNull)
        #expect(items[1]["message"] as? String == "")
    }

    @Test(arguments: Backend.allCases)
    func anotherUsersChatIsNotFoundOnEveryRoute(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        _ = try app.user("bob")
        let mallory = try app.user("mallory")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        #expect(try mallory.get("/api/chats/\(chatID)").status == 404)
        #expect(try mallory.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"sneaky"}"#).status == 404)
        #expect(try mallory.send("POST", "/api/chats/\(chatID)/read").status == 404)
        #expect(try mallory.get("/api/chats/abc").status == 404)
        #expect(try mallory.get("/api/chats/99999").status == 404)
        #expect((try alice.get("/api/chats/\(chatID)").json["messages"] as? [Any])?.isEmpty == true)
    }

    @Test(arguments: Backend.allCases)
    func theBotReadsAndAnswers(_ backend: Backend) throws {
        let app = try TestApp(backend: backend, botDelay: 0.05)
        let alice = try app.user("alice")
        let chat = try alice.send("POST", "/api/chats", json: #"{"contact":"bot"}"#)
        let chatID = try #require(chat.json["id"] as? String)
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"tailor-made"}"#)
        let view = try alice.waitFor(topic: "chat:\(chatID)") { ($0["messages"] as? [Any])?.count == 2 }
        let messages = try #require(view["messages"] as? [[String: Any]])
        #expect(messages.count == 2)
        #expect(messages.first?["state"] as? String == "read")
        #expect(messages.last?["sender"] as? String == "other")
        #expect(messages.last?["senderName"] as? String == "bot")
        #expect((messages.last?["text"] as? String)?.contains("tailor-made") == true)
        #expect(try alice.get("/api/badge").json["unread"] as? Int == 1)
    }

    @Test(arguments: Backend.allCases)
    func viewModelsCarryETagsAndAnswer304(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let first = try alice.get("/api/chats")
        let etag = try #require(first.header("etag"))
        #expect(first.header("vary") == "Accept-Encoding")
        let again = try alice.get("/api/chats", headers: ["If-None-Match: \(etag)"])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        _ = try app.user("bob")
        try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#)
        let changed = try alice.get("/api/chats", headers: ["If-None-Match: \(etag)"])
        #expect(changed.status == 200)
        #expect(changed.header("etag") != etag)
    }
}
