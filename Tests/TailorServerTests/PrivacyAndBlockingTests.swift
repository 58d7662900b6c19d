import Foundation
import Glibc
import TailorApp
import TailorStore
import TailorTestSupport
import Testing

/// Who sees whom: presence only between people who talk, a privacy setting
/// that hides it both ways, a block that stops a contact's messages and
/// presence, and an account an operator disables on a running server.
@Suite struct PrivacyAndBlockingTests {
    private static func status(_ view: [String: Any]) -> Any? { view["contactStatus"] }
    private static func isHidden(_ view: [String: Any]) -> Bool { view["contactStatus"] is NSNull }
    private static func firstItem(_ list: [String: Any]) -> [String: Any] { (list["items"] as? [[String: Any]])?.first ?? [:] }

    /// Anyone who knows a name can open a chat with it: they see nothing of
    /// that person's presence (online, typing) until the person writes there.
    @Test(arguments: Backend.allCases)
    func aStrangerSeesNoPresenceUntilTheContactWrites(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (mallory, bob, chatID) = try { () throws -> (APIClient, APIClient, String) in
            let mallory = try app.user("mallory")
            let bob = try app.user("bob")
            let id = try #require(try mallory.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
            return (mallory, bob, id)
        }()
        let bobsStream = try SSEClient(port: app.port, token: bob.token, topics: "badge")
        _ = try bobsStream.next()
        #expect(try bob.send("POST", "/api/chats/\(chatID)/typing").status == 204)
        #expect(Self.isHidden(try mallory.get("/api/chats/\(chatID)").json), "bob is online and typing, but never wrote to mallory")
        #expect(Self.isHidden(Self.firstItem(try mallory.get("/api/chats").json)))
        // Mallory wrote, so Bob sees Mallory's presence; once Bob answers, Mallory sees his.
        #expect(try mallory.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hi"}"#).status == 201)
        #expect(!Self.isHidden(try bob.get("/api/chats/\(chatID)").json))
        #expect(Self.isHidden(try mallory.get("/api/chats/\(chatID)").json))
        #expect(try bob.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"who are you?"}"#).status == 201)
        _ = try mallory.waitFor(topic: "chat:\(chatID)") { ($0["contactStatus"] as? [String: Any])?["state"] as? String == "online" }
        let item = Self.firstItem(try mallory.get("/api/chats").json)
        #expect((item["contactStatus"] as? [String: Any])?["state"] as? String == "online")
    }

    /// Turning presence off hides it from every contact and, as messaging
    /// apps do, hides theirs from the one who turned it off; on again, both see.
    @Test(arguments: Backend.allCases)
    func aPrivacySettingHidesPresenceBothWays(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try PresenceTests.talking(app)
        #expect(try alice.get("/api/me/privacy").json["showPresence"] as? Bool == true)
        let bobsScreen = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)")
        #expect(!Self.isHidden(try bobsScreen.next().json))

        let off = try alice.send("PUT", "/api/me/privacy", json: #"{"showPresence":false}"#)
        #expect(off.status == 200)
        #expect(off.json["showPresence"] as? Bool == false)
        _ = try bobsScreen.next(where: { Self.isHidden($0.json) })
        #expect(Self.isHidden(try alice.get("/api/chats/\(chatID)").json), "alice sees no one's presence either")
        #expect(Self.isHidden(Self.firstItem(try bob.get("/api/chats").json)))
        #expect(try alice.get("/api/me/privacy").json["showPresence"] as? Bool == false)

        #expect(try alice.send("PUT", "/api/me/privacy", json: #"{"showPresence":true}"#).status == 200)
        _ = try bobsScreen.next(where: { !Self.isHidden($0.json) })
        #expect(!Self.isHidden(try alice.get("/api/chats/\(chatID)").json))
        for body in [#"{}"#, #"{"showPresence":"no"}"#, #"{"showPresence":null}"#] {
            #expect(try alice.send("PUT", "/api/me/privacy", json: body).status == 422, "\(body)")
        }
        #expect(try app.client().send("PUT", "/api/me/privacy", json: #"{"showPresence":false}"#).status == 401)
    }

    /// The chatbot is shown online to everyone, but not while it is blocked:
    /// its chat then shows no status, as any blocked contact's.
    @Test(arguments: Backend.allCases)
    func aBlockedChatbotShowsNoStatus(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bot"}"#).json["id"] as? String)
        #expect((try alice.get("/api/chats/\(chatID)").json["contactStatus"] as? [String: Any])?["state"] as? String == "online")
        #expect(try alice.send("POST", "/api/chats/\(chatID)/block").status == 200)
        #expect(Self.isHidden(try alice.get("/api/chats/\(chatID)").json))
        #expect(Self.isHidden(Self.firstItem(try alice.get("/api/chats").json)))
    }

    /// A block refuses the contact's messages (403 `blocked`) and the
    /// blocker's too, hides presence both ways, and the blocker's chat says
    /// so with the action to lift it; lifted, messages go again.
    @Test(arguments: Backend.allCases)
    func aBlockStopsTheContactsMessagesAndPresenceUntilItIsLifted(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let (alice, bob, chatID) = try PresenceTests.talking(app)
        let carol = try app.user("carol")
        #expect(try carol.send("POST", "/api/chats/\(chatID)/block").status == 404)
        let alicesStream = try SSEClient(port: app.port, token: alice.token, topics: "chat:\(chatID)")
        _ = try alicesStream.next()

        let unread = try bob.get("/api/badge").json["unread"] as? Int
        let blocked = try bob.send("POST", "/api/chats/\(chatID)/block")
        #expect(blocked.status == 200)
        #expect(blocked.json["blocked"] as? Bool == true)
        let actions = try #require(blocked.json["actions"] as? [String: Any])
        #expect(actions["block"] is NSNull)
        #expect((actions["unblock"] as? [String: Any])?["method"] as? String == "DELETE")
        #expect(Self.isHidden(blocked.json))
        #expect(try bob.send("POST", "/api/chats/\(chatID)/block").status == 200, "blocking again changes nothing")

        let refused = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"let me in","clientId":"c-1"}"#)
        #expect(refused.status == 403)
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "blocked")
        #expect(try bob.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"no"}"#).status == 403)
        let alicesView = try alicesStream.next(where: { Self.isHidden($0.json) })
        #expect(alicesView.json["blocked"] as? Bool == false, "alice's chat does not say she is blocked")
        #expect(Self.isHidden(Self.firstItem(try alice.get("/api/chats").json)))
        #expect(try bob.get("/api/badge").json["unread"] as? Int == unread, "a refused message is no unread one")

        let lifted = try bob.send("DELETE", "/api/chats/\(chatID)/block")
        #expect(lifted.status == 200)
        #expect(lifted.json["blocked"] as? Bool == false)
        #expect(((lifted.json["actions"] as? [String: Any])?["block"] as? [String: Any])?["method"] as? String == "POST")
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"let me in","clientId":"c-1"}"#).status == 201)
    }

    /// `tailor users`, its status and what it printed.
    private static func users(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let command = Process()
        command.executableURL = ShutdownTests.executable
        command.arguments = ["users"] + arguments
        let output = Pipe()
        command.standardOutput = output
        command.standardError = output
        try SpawnGate.run(command)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        command.waitUntilExit()
        return (command.terminationStatus, text)
    }

    /// An operator disables an account while its server runs (a SQLite
    /// file, or two servers on PostgreSQL): the command returns once every
    /// server has confirmed it, its streams end at once, its token, session
    /// and password sign in no more; enabled, the token and password do
    /// again, the sessions do not.
    @Test(arguments: Backend.allCases)
    func anOperatorDisablesAnAccountAndItsStreamsEndAtOnce(_ backend: Backend) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db: String
        switch try backend == .sqlite ? .sqlite(path: folder.appendingPathComponent("tailor.sqlite").path) : TestDatabase.fresh(.postgres) {
        case .sqlite(let path): db = path
        case .postgres(let url): db = url
        }
        let servers = try (backend == .sqlite ? [0] : [0, 1]).map { _ in try ShutdownTests.RunningServer(arguments: ["--db", db]) }
        defer { for server in servers { kill(server.process.processIdentifier, SIGTERM); _ = server.waitForExit(timeout: 20) } }
        let first = servers[0], last = servers[servers.count - 1]

        let signUp = try APIClient(port: first.port).send("POST", "/api/users", json: #"{"name":"alice","password":"correct horse"}"#)
        let token = try #require(signUp.json["token"] as? String)
        let cookie = try #require(signUp.header("set-cookie")?.split(separator: ";").first.map(String.init))
        let streams = try [SSEClient(port: last.port, token: token, topics: "badge"),
                           SSEClient(port: last.port, token: nil, topics: "chats", headers: ["Cookie: \(cookie)"])]
        for stream in streams { _ = try stream.next() }
        let onLast = try APIClient(port: last.port)
        onLast.token = token
        #expect(try onLast.get("/api/me").status == 200)

        let disabled = try Self.users(["disable", "--db", db, "ALICE"])
        #expect(disabled.status == 0, "\(disabled.output)")
        #expect(disabled.output.contains(backend == .sqlite ? "confirmed by the server" : "confirmed by 2 servers"), "\(disabled.output)")
        // Once the command has returned, not a request more.
        #expect(try onLast.get("/api/me").status == 401)
        for stream in streams { #expect(stream.waitForEnd(), "a stream of the disabled account is still open") }
        #expect(try APIClient(port: first.port).get("/api/me", headers: ["Cookie: \(cookie)"]).status == 401)
        let signIn = try APIClient(port: first.port).send("POST", "/api/session", json: #"{"name":"alice","password":"correct horse"}"#)
        #expect(signIn.status == 401)
        #expect(try Self.users(["disable", "--db", db, "nobody"]).status != 0)

        let enabled = try Self.users(["enable", "--db", db, "alice"])
        #expect(enabled.status == 0, "\(enabled.output)")
        #expect(try onLast.get("/api/me").status == 200)
        #expect(try APIClient(port: first.port).get("/api/me", headers: ["Cookie: \(cookie)"]).status == 401, "a session came back")
        #expect(try APIClient(port: first.port).send("POST", "/api/session", json: #"{"name":"alice","password":"correct horse"}"#).status == 200)
    }
}
