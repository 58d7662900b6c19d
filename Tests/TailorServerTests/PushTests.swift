import Foundation
import TailorApp
import TailorStore
import TailorTestSupport
import Testing

/// Web Push against a push service stand-in on 127.0.0.1 over HTTPS
/// (`PushServiceStandIn`), which checks each push's VAPID token and decrypts
/// its payload with code that is not the server's.
@Suite struct PushTests {
    static func app(pushingTo service: PushServiceStandIn, backend: Backend = .sqlite, timeout: Double = 5) throws -> TestApp {
        try TestApp(backend: backend) { configuration in
            configuration.push.hosts += [service.host]
            configuration.push.caFile = service.caFile
            configuration.push.delay = 100
            configuration.push.timeout = timeout
        }
    }

    /// A push as the stand-in took it, its payload and checks.
    static func expectPush(_ push: [String: Any]?, to subscription: Int, text: String, chatID: String) {
        #expect(push?["subscription"] as? Int == subscription)
        #expect(push?["vapid"] as? String == "ok")
        #expect(push?["encoding"] as? String == "aes128gcm")
        #expect(push?["urgency"] as? String == "high")
        #expect(push?["ttl"] as? String == "86400")
        #expect(push?["topic"] as? String == "chat-\(chatID)")
        let payload = push?["payload"] as? [String: Any]
        #expect(payload?["chatId"] as? String == chatID)
        #expect(payload?["contact"] as? String == "alice")
        #expect(payload?["text"] as? String == text)
        #expect((payload?["open"] as? [String: Any])?["href"] as? String == "/api/chats/\(chatID)")
    }

    @Test(arguments: Backend.allCases)
    func aMessageToAUserWithNoStreamIsPushedToEachSubscriptionOnce(_ backend: Backend) throws {
        let service = try PushServiceStandIn(subscriptions: 2)
        let app = try Self.app(pushingTo: service, backend: backend)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let key = try #require(try bob.get("/api/push/key").json["key"] as? String)
        #expect(key.count == 87 && key.hasPrefix("B"))
        for subscription in service.subscriptions {
            #expect(try bob.send("POST", "/api/push/subscriptions", json: subscription).status == 201)
        }
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hello bob"}"#).status == 201)
        let pushes = try [service.nextPush(), service.nextPush()].sorted { ($0?["subscription"] as? Int ?? 0) < ($1?["subscription"] as? Int ?? 0) }
        Self.expectPush(pushes[0], to: 0, text: "hello bob", chatID: chatID)
        Self.expectPush(pushes[1], to: 1, text: "hello bob", chatID: chatID)
        // Once each; and alice, who has no subscription, gets none for bob's answer.
        #expect(try bob.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hi alice"}"#).status == 201)
        #expect(try service.nextPush(timeout: 1.5) == nil)
    }

    @Test func aStreamShowingTheChatCancelsItsPushesAndOneShowingOthersDoesNot() throws {
        let service = try PushServiceStandIn(subscriptions: 1)
        let app = try Self.app(pushingTo: service)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        #expect(try bob.send("POST", "/api/push/subscriptions", json: service.subscriptions[0]).status == 201)
        let showing = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)")
        _ = try showing.next()
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"seen live"}"#).status == 201)
        #expect(try service.nextPush(timeout: 1.5) == nil)
        showing.connection.reset()
        #expect(app.waitForConnections(atMost: 2))
        let elsewhere = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge")
        _ = try elsewhere.next()
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"not on show"}"#).status == 201)
        Self.expectPush(try service.nextPush(), to: 0, text: "not on show", chatID: chatID)
    }

    @Test func whatPushServicesAnswerIsFollowed() throws {
        let service = try PushServiceStandIn(subscriptions: 3, behaviours: [0: "410", 1: "429", 2: "hang"])
        let app = try Self.app(pushingTo: service, timeout: 1)
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        for subscription in service.subscriptions {
            #expect(try bob.send("POST", "/api/push/subscriptions", json: subscription).status == 201)
        }
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"knock"}"#).status == 201)
        var taken: [Int: [[String: Any]]] = [:]
        // 410, 429, a push that hangs, then the 429's retry after its Retry-After,
        // which the hanging push does not hold up.
        while taken[1, default: []].count < 2, let push = try service.nextPush(timeout: 15) {
            taken[push["subscription"] as? Int ?? -1, default: []].append(push)
        }
        #expect(taken[0]?.map { $0["status"] as? Int } == [410])
        #expect(taken[1]?.map { $0["status"] as? Int } == [429, 201])
        let waited = (taken[1]?[1]["at"] as? Double ?? 0) - (taken[1]?[0]["at"] as? Double ?? 0)
        #expect(waited >= 0.9)
        #expect(taken[2]?.first?["status"] as? String == "hang")
        // The push service no longer knows subscription 0: it is gone.
        let database = try SQLiteConnection(path: app.folder.appendingPathComponent("tailor.sqlite").path, readOnly: true)
        let left = try database.query("SELECT endpoint FROM push_subscriptions ORDER BY id", binding: []) { $0.text(0) }
        #expect(left == Array(service.endpoints.dropFirst()))
    }

    /// Mallory's ten subscriptions are on an endpoint that takes the
    /// connection and never answers, and Alice writes to her thirty times:
    /// Bob's push, queued after all of hers, still arrives while hers hang.
    /// Hers to one chat replace each other while they wait, counted in /metrics.
    @Test func aPushServiceThatHangsHoldsUpOnlyItsOwnSubscriptions() throws {
        let service = try PushServiceStandIn(subscriptions: 11, behaviours: Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, "hang") }))
        let app = try Self.app(pushingTo: service, timeout: 30)
        let alice = try app.user("alice")
        let mallory = try app.user("mallory")
        let bob = try app.user("bob")
        for subscription in service.subscriptions.prefix(10) {
            #expect(try mallory.send("POST", "/api/push/subscriptions", json: subscription).status == 201)
        }
        #expect(try bob.send("POST", "/api/push/subscriptions", json: service.subscriptions[10]).status == 201)
        let malloryChat = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"mallory"}"#).json["id"] as? String)
        let bobChat = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        for index in 0..<30 {
            #expect(try alice.send("POST", "/api/chats/\(malloryChat)/messages", json: #"{"text":"m\#(index)"}"#).status == 201)
        }
        #expect(try alice.send("POST", "/api/chats/\(bobChat)/messages", json: #"{"text":"for bob"}"#).status == 201)
        // Each of Mallory's hangs for 30 s: Bob's must come before the first is given up.
        var bobs: [String: Any]?
        while bobs == nil, let push = try service.nextPush(timeout: 20) {
            if push["subscription"] as? Int == 10 { bobs = push }
        }
        Self.expectPush(bobs, to: 10, text: "for bob", chatID: bobChat)
        let metrics = try app.client().get("/metrics").text
        #expect(metrics.contains("tailor_push_dropped_total{reason=\"replaced\"}"), "\(metrics.split(separator: "\n").filter { $0.contains("push") })")
    }

    @Test func subscriptionsAreCheckedAndBounded() throws {
        let service = try PushServiceStandIn(subscriptions: 11)
        let app = try Self.app(pushingTo: service)
        let (alice, bob, _) = try app.aliceAndBobInAChat()
        let keys = #""keys":{"p256dh":"BLnzXC5W5Q2bOqJRE2ZoyTccvzjyqTMVkmR9PBsjhN9gRWD1W39nhdx5tm_H_7Rq2DSPve5iZRskOQxm8xC9UNk","auth":"AAAAAAAAAAAAAAAAAAAAAA"}"#
        let valid = try #require(try JSONSerialization.jsonObject(with: Data(service.subscriptions[0].utf8)) as? [String: Any])
        let validKeys = try #require(valid["keys"] as? [String: String])
        for body in [#"{"endpoint":"http://127.0.0.1:1/push/0",\#(keys)}"#,
                     #"{"endpoint":"https://example.com/push/0",\#(keys)}"#,
                     #"{"endpoint":"https://user@127.0.0.1/push/0",\#(keys)}"#,
                     #"{"endpoint":"https://10.0.0.1/push/0",\#(keys)}"#,
                     // A browser's push service, but a port it never answers on; the stand-in's host on another port.
                     #"{"endpoint":"https://fcm.googleapis.com:22/fcm/send/x",\#(keys)}"#,
                     #"{"endpoint":"https://127.0.0.1:1/push/0",\#(keys)}"#,
                     #"{"endpoint":"\#(service.endpoints[0])"}"#,
                     #"{"endpoint":"\#(service.endpoints[0])","keys":{"p256dh":"AAAA","auth":"\#(validKeys["auth"]!)"}}"#,
                     #"{"endpoint":"\#(service.endpoints[0])","keys":{"p256dh":"\#(validKeys["p256dh"]!)","auth":"AAAA"}}"#,
                     #"{"endpoint":"\#(service.endpoints[0])","keys":{"p256dh":"\#(validKeys["p256dh"]!)","auth":"not base64!"}}"#] {
            #expect(try bob.send("POST", "/api/push/subscriptions", json: body).status == 422, "\(body)")
        }
        for subscription in service.subscriptions.prefix(10) {
            #expect(try bob.send("POST", "/api/push/subscriptions", json: subscription).status == 201)
        }
        let eleventh = try bob.send("POST", "/api/push/subscriptions", json: service.subscriptions[10])
        #expect(eleventh.status == 409)
        #expect((eleventh.json["error"] as? [String: Any])?["code"] as? String == "too_many_subscriptions")
        // One endpoint is one browser: signed in as alice now, it is hers.
        #expect(try bob.send("POST", "/api/push/subscriptions", json: service.subscriptions[3]).status == 201)
        #expect(try alice.send("POST", "/api/push/subscriptions", json: service.subscriptions[3]).status == 201)
        let endpoint = #"{"endpoint":"\#(service.endpoints[3])"}"#
        #expect(try bob.send("DELETE", "/api/push/subscriptions", json: endpoint).status == 404)
        #expect(try alice.send("DELETE", "/api/push/subscriptions", json: endpoint).status == 204)
        #expect(try alice.send("DELETE", "/api/push/subscriptions", json: endpoint).status == 404)
    }

    @Test func aSessionThatEndsTakesItsSubscriptionsWithIt() throws {
        let service = try PushServiceStandIn(subscriptions: 1)
        let app = try Self.app(pushingTo: service)
        let alice = try app.user("alice")
        let signUp = try app.client().send("POST", "/api/users", json: #"{"name":"bob"}"#)
        let cookie = try #require(signUp.header("set-cookie")?.split(separator: ";").first.map(String.init))
        let browser = try app.client()
        #expect(try browser.send("POST", "/api/push/subscriptions", json: service.subscriptions[0], headers: ["Cookie: \(cookie)"]).status == 201)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        #expect(try browser.send("DELETE", "/api/session", headers: ["Cookie: \(cookie)"]).status == 204)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"after sign-out"}"#).status == 201)
        #expect(try service.nextPush(timeout: 1.5) == nil)
    }

    /// Two servers on one PostgreSQL database: the one that stored a message
    /// is killed before its push is due, and the other delivers it, once.
    @Test func aPushOfAServerKilledBeforeItWasDueIsDeliveredByTheOther() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let service = try PushServiceStandIn(subscriptions: 1)
        let flags = ["--db", url, "--push-hosts", service.host, "--push-ca-file", service.caFile]
        let doomed = try ShutdownTests.RunningServer(arguments: flags)
        let survivor = try ShutdownTests.RunningServer(arguments: flags)
        defer { kill(survivor.process.processIdentifier, SIGTERM); _ = survivor.waitForExit(timeout: 20) }
        let alice = try APIClient.signedUp("alice", port: doomed.port)
        let bob = try APIClient.signedUp("bob", port: doomed.port)
        #expect(try bob.send("POST", "/api/push/subscriptions", json: service.subscriptions[0]).status == 201)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"before the crash"}"#).status == 201)
        // Committed, and due half a second later: the server dies first.
        kill(doomed.process.processIdentifier, SIGKILL)
        _ = doomed.waitForExit(timeout: 20)
        Self.expectPush(try service.nextPush(timeout: 20), to: 0, text: "before the crash", chatID: chatID)
        #expect(try service.nextPush(timeout: 1.5) == nil)
    }

    /// Two servers on one PostgreSQL database: a stream showing the chat on
    /// one cancels the push of a message sent through the other.
    @Test func aStreamShowingTheChatOnAnotherServerCancelsThePush() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let service = try PushServiceStandIn(subscriptions: 1)
        let flags = ["--db", url, "--push-hosts", service.host, "--push-ca-file", service.caFile]
        let sending = try ShutdownTests.RunningServer(arguments: flags)
        let showing = try ShutdownTests.RunningServer(arguments: flags)
        defer {
            for server in [sending, showing] { kill(server.process.processIdentifier, SIGTERM); _ = server.waitForExit(timeout: 20) }
        }
        let alice = try APIClient.signedUp("alice", port: sending.port)
        let bob = try APIClient.signedUp("bob", port: sending.port)
        #expect(try bob.send("POST", "/api/push/subscriptions", json: service.subscriptions[0]).status == 201)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let stream = try SSEClient(port: showing.port, token: bob.token, topics: "chat:\(chatID)")
        _ = try stream.next()
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"seen on the other server"}"#).status == 201)
        _ = try stream.next(where: { ($0.json["messages"] as? [[String: Any]])?.last?["text"] as? String == "seen on the other server" })
        #expect(try service.nextPush(timeout: 2) == nil)
        stream.connection.reset()
    }

    /// `--vapid-key FILE`: the server signs with the key of a PEM file made
    /// elsewhere, and gives its public half to browsers.
    @Test func aVAPIDKeyFromAFileIsTheOneGivenToBrowsers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-vapid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pem = folder.appendingPathComponent("vapid.pem").path
        let maker = Process()
        maker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        maker.arguments = ["python3", "-c", """
            import base64, sys
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            key = ec.generate_private_key(ec.SECP256R1())
            open(sys.argv[1], "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()))
            point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            print(base64.urlsafe_b64encode(point).rstrip(b"=").decode())
            """, pem]
        let output = Pipe()
        maker.standardOutput = output
        try SpawnGate.run(maker)
        let expected = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(expected.count == 87)
        let app = try TestApp { $0.push.keyFile = pem }
        let user = try app.user("alice")
        #expect(try user.get("/api/push/key").json["key"] as? String == expected)
        // A file that holds no key stops the server at start, saying which file.
        let broken = folder.appendingPathComponent("broken.pem").path
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: broken))
        #expect(throws: ConfigurationError.self) { _ = try TestApp { $0.push.keyFile = broken } }
    }
}
