import Foundation
import TailorApp
import TailorStore
import TailorTestSupport
import Testing

/// A session that ends stops at once, whatever it was doing as it ended: a
/// stream being opened with it, a request that read it from the store, a
/// sign-in that used its token.
@Suite struct SessionEndTests {
    /// An app without the limits on sign-ins and writes, which the races below
    /// repeat past.
    private func unlimitedApp(_ backend: Backend, database: DatabaseLocation? = nil) throws -> TestApp {
        try TestApp(backend: backend, database: database) {
            $0.accountLimit = .unlimited
            $0.writeLimit = .unlimited
            $0.quotas.sessionsPerUser = 1_000
        }
    }

    /// A new browser session of the account whose token `script` sends: its
    /// cookie's token and its id.
    private func newSession(of script: APIClient, in app: TestApp) throws -> (token: String, id: String) {
        let signIn = try app.client().send("POST", "/api/session", json: #"{"token":"\#(script.token!)"}"#)
        let token = try #require(AccountAPITests.sessionToken(signIn))
        let items = try app.client().get("/api/sessions", headers: ["Cookie: tailor_session=\(token)"]).json["items"] as? [[String: Any]]
        let id = try #require(items?.first { $0["current"] as? Bool == true }?["id"] as? String)
        return (token, id)
    }

    /// Each topic of a stream is checked by a read before the stream
    /// subscribes; a session ended meanwhile must still end the stream.
    @Test(arguments: Backend.allCases)
    func aStreamOpeningAsItsSessionEndsEndsToo(_ backend: Backend) throws {
        let app = try unlimitedApp(backend)
        let alice = try app.user("alice")
        var topics: [String] = []
        for _ in 0..<32 {  // the most a stream may follow
            let id = try #require(try alice.send("POST", "/api/orders", json: OrderAPITests.groceries).json["id"] as? String)
            topics.append("order:\(id)")
        }
        let query = topics.joined(separator: ",")
        var stayedOpen = 0
        for attempt in 0..<40 {
            let session = try newSession(of: alice, in: app)
            let opened = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var stream: SSEClient?
            let port = app.port
            Thread.detachNewThread {
                stream = try? SSEClient(port: port, token: nil, topics: query, timeout: 2,
                                        headers: ["Cookie: tailor_session=\(session.token)"])
                opened.signal()
            }
            // The race is run at a different moment each time: 0 to 4 ms in.
            spin(microseconds: Double(attempt % 5) * 1000)
            #expect(try alice.send("DELETE", "/api/sessions/\(session.id)").status == 204)
            opened.wait()
            let opening = try #require(stream)
            if opening.response.status == 200, !opening.waitForEnd() { stayedOpen += 1 }
        }
        #expect(stayedOpen == 0, "\(stayedOpen) of 40 streams outlived their session")
    }

    /// A request that read a session from the store just before it ended
    /// must not teach the server the session again.
    @Test(arguments: Backend.allCases)
    func aSessionReadAsItEndsIsNotLearntAgain(_ backend: Backend) throws {
        // Restarting empties the server's memory of tokens: each is read again.
        let location = try TestDatabase.fresh(backend)
        var sessions: [(token: String, id: String)] = []
        let alice: APIClient
        do {
            let app = try unlimitedApp(backend, database: location)
            alice = try app.user("alice")
            for _ in 0..<200 { sessions.append(try newSession(of: alice, in: app)) }
        }
        let app = try unlimitedApp(backend, database: location)
        let script = try app.client()
        script.token = alice.token
        let port = app.port
        for (index, session) in sessions.enumerated() {
            let asked = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let browser = try? APIClient(port: port)
                _ = try? browser?.get("/api/me", headers: ["Cookie: tailor_session=\(session.token)"])
                asked.signal()
            }
            // The race is run at a different moment each time: 0 to 450 µs in.
            spin(microseconds: Double(index % 4) * 150)
            #expect(try script.send("DELETE", "/api/sessions/\(session.id)").status == 204)
            asked.wait()
        }
        let browser = try app.client()
        let stillValid = try sessions.filter { try browser.get("/api/me", headers: ["Cookie: tailor_session=\($0.token)"]).status != 401 }
        #expect(stillValid.isEmpty, "\(stillValid.count) ended sessions still answered")
    }

    /// A session's token does not sign another browser in: that session
    /// would go on after the one it came from ended.
    @Test func aSessionsTokenSignsNoNewSessionIn() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let session = try newSession(of: alice, in: app)
        let signIn = try app.client().send("POST", "/api/session", json: #"{"token":"\#(session.token)"}"#)
        #expect(signIn.status == 401)
        #expect(signIn.header("set-cookie") == nil)
        #expect(try app.client().send("POST", "/api/session", json: #"{"token":"\#(alice.token!)"}"#).status == 200)
    }

    /// An account holds at most its quota of sessions: a new one ends the
    /// oldest, its cookie and its streams with it.
    @Test(arguments: Backend.allCases)
    func aNewSessionPastTheQuotaEndsTheOldest(_ backend: Backend) throws {
        let app = try TestApp(backend: backend) { $0.quotas.sessionsPerUser = 3 }
        let alice = try app.user("alice")
        let oldest = try newSession(of: alice, in: app)
        let stream = try SSEClient(port: app.port, token: nil, topics: "badge", headers: ["Cookie: tailor_session=\(oldest.token)"])
        _ = try stream.next()
        var newer: [(token: String, id: String)] = []
        for _ in 0..<3 { newer.append(try newSession(of: alice, in: app)) }
        #expect(stream.waitForEnd())
        #expect(try app.client().get("/api/me", headers: ["Cookie: tailor_session=\(oldest.token)"]).status == 401)
        let listed = try alice.get("/api/sessions").json["items"] as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["id"] as? String } == newer.reversed().map(\.id))
        for session in newer {
            #expect(try app.client().get("/api/me", headers: ["Cookie: tailor_session=\(session.token)"]).status == 200)
        }
    }

    /// The sessions list is a page, with `next` for the one after it.
    @Test func sessionsComeInPages() throws {
        let app = try unlimitedApp(.sqlite)
        let alice = try app.user("alice")
        // With the sign-up's own, five sessions.
        for _ in 0..<4 { _ = try newSession(of: alice, in: app) }
        let first = try alice.get("/api/sessions?limit=3").json
        #expect((first["items"] as? [Any])?.count == 3)
        let next = try #require((first["next"] as? [String: Any])?["href"] as? String)
        #expect(next == "/api/sessions?offset=3&limit=3")
        let second = try alice.get(next).json
        #expect((second["items"] as? [Any])?.count == 2)
        #expect(second["next"] is NSNull)
        #expect(try alice.get("/api/sessions?limit=0").status == 422)
    }

    /// A browser's name for itself is cut to its byte limit at once, however
    /// long and whatever its characters.
    @Test func aHugeUserAgentIsCutAtOnce() throws {
        let app = try TestApp()
        let client = try RawClient(port: app.port, timeout: 5)
        let body = #"{"name":"alice"}"#
        let agent = String(repeating: "é", count: 31_000) + String(repeating: "🇩🇪", count: 250)
        try client.send("POST /api/users HTTP/1.1\r\nHost: test\r\nUser-Agent: \(agent)\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let signUp = try client.readResponse()
        #expect(signUp.status == 201)
        let token = try #require(AccountAPITests.sessionToken(signUp))
        let listed = try app.client().get("/api/sessions", headers: ["Cookie: tailor_session=\(token)"]).json["items"] as? [[String: Any]]
        #expect(listed?.first?["userAgent"] as? String == String(repeating: "é", count: 128))
    }
}
