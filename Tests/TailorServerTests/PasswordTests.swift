import Foundation
import Testing
import TailorApp
import TailorTestSupport

/// Accounts with passwords: chosen at sign-up, used with the name to sign a
/// new browser in; every wrong try answered alike, and tries per name limited.
@Suite struct PasswordTests {
    /// The session token a sign-up or sign-in set as its cookie.
    private func sessionToken(_ response: TestResponse) -> String? {
        response.header("set-cookie")?.split(separator: ";").first?.split(separator: "=").last.map(String.init)
    }

    @Test(arguments: Backend.allCases)
    func aPasswordChosenAtSignUpSignsANewBrowserIn(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let signUp = try app.client().send("POST", "/api/users", json: #"{"name":"Pat","password":"correct horse 🐴"}"#)
        #expect(signUp.status == 201)
        let id = (signUp.json["user"] as? [String: Any])?["id"] as? String

        let laptop = try app.client()
        let signIn = try laptop.send("POST", "/api/session", json: #"{"name":"pat","password":"correct horse 🐴"}"#)
        #expect(signIn.status == 200)
        #expect((signIn.json["user"] as? [String: Any])?["id"] as? String == id)
        let session = try #require(sessionToken(signIn))
        #expect(session != sessionToken(signUp))
        #expect(try laptop.get("/api/me", headers: ["Cookie: tailor_session=\(session)"]).status == 200)
    }

    @Test func wrongPasswordsUnknownNamesAndAccountsWithoutOneAreAnsweredAlike() throws {
        let app = try TestApp()
        _ = try app.client().send("POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#)
        _ = try app.user("tokenonly")
        let client = try app.client()
        let answers = try [#"{"name":"pat","password":"wrong horse"}"#, #"{"name":"nobody","password":"correct horse"}"#,
                           #"{"name":"tokenonly","password":"correct horse"}"#].map { try client.send("POST", "/api/session", json: $0) }
        #expect(answers.map(\.status) == [401, 401, 401])
        #expect(Set(answers.map { String(decoding: $0.body, as: UTF8.self) }).count == 1, "one answer for all three")
        #expect(answers.allSatisfy { $0.header("set-cookie") == nil })
        #expect(try client.send("POST", "/api/session", json: #"{"name":"pat"}"#).status == 422)
    }

    @Test(arguments: [#"{"name":"a","password":"short"}"#, #"{"name":"b","password":5}"#,
                      #"{"name":"c","password":"\#(String(repeating: "x", count: 129))"}"#,
                      #"{"name":"d","password":"\#(String(repeating: "😀", count: 129))"}"#])
    func passwordsOutsideTheirLimitsAreRefused(body: String) throws {
        let app = try TestApp()
        #expect(try app.client().send("POST", "/api/users", json: body).status == 422, "\(body)")
    }

    @Test func triesPerNameAreLimitedWhateverTheAddress() throws {
        let app = try TestApp { $0.passwordAttemptLimit = RateLimit(perSecond: 0.001, burst: 3) }
        _ = try app.client().send("POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#)
        _ = try app.client().send("POST", "/api/users", json: #"{"name":"sam","password":"correct horse"}"#)
        let guesser = try app.client()
        for _ in 0..<3 {
            #expect(try guesser.send("POST", "/api/session", json: #"{"name":"pat","password":"guess guess"}"#).status == 401)
        }
        // Even the right password waits now, from anywhere; another name does not.
        let limited = try app.client().send("POST", "/api/session", json: #"{"name":"PAT","password":"correct horse"}"#)
        #expect(limited.status == 429)
        #expect(Int(limited.header("retry-after") ?? "") ?? 0 > 0)
        #expect(try app.client().send("POST", "/api/session", json: #"{"name":"sam","password":"correct horse"}"#).status == 200)
    }

    /// A new password ends every other session of the account at once, on
    /// every server (the change feed carries it); the session that asked and
    /// the account token go on.
    @Test(arguments: Backend.allCases)
    func aNewPasswordEndsTheOtherSessions(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let signUp = try app.client().send("POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#)
        let accountToken = try #require(signUp.json["token"] as? String)
        let phone = try #require(sessionToken(signUp))
        let laptop = try #require(sessionToken(try app.client().send("POST", "/api/session", json: #"{"name":"pat","password":"correct horse"}"#)))
        let fromLaptop = try app.client()
        func change(_ json: String) throws -> TestResponse {
            try fromLaptop.send("PUT", "/api/me/password", json: json, headers: ["Cookie: tailor_session=\(laptop)"])
        }
        #expect(try change(#"{"password":"battery staple"}"#).status == 422, "the current password is needed")
        #expect(try change(#"{"password":"battery staple","current":"wrong horse"}"#).status == 422)
        #expect(try change(#"{"password":"short","current":"correct horse"}"#).status == 422)
        #expect(try change(#"{"password":"battery staple","current":"correct horse"}"#).status == 204)

        #expect(try app.client().get("/api/me", headers: ["Cookie: tailor_session=\(phone)"]).status == 401)
        #expect(try app.client().get("/api/me", headers: ["Cookie: tailor_session=\(laptop)"]).status == 200)
        #expect(try app.client().get("/api/me", headers: ["Authorization: Bearer \(accountToken)"]).status == 200)
        #expect(try app.client().send("POST", "/api/session", json: #"{"name":"pat","password":"correct horse"}"#).status == 401)
        #expect(try app.client().send("POST", "/api/session", json: #"{"name":"pat","password":"battery staple"}"#).status == 200)
    }

    /// A stream opened with a session's cookie ends when the session does
    /// (revoked from elsewhere, or by a new password); one opened with the
    /// account token goes on.
    @Test(arguments: Backend.allCases)
    func anEndedSessionsStreamsEndAtOnce(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let signUp = try app.client().send("POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#)
        let accountToken = try #require(signUp.json["token"] as? String)
        let phone = try #require(sessionToken(signUp))
        let laptop = try #require(sessionToken(try app.client().send("POST", "/api/session", json: #"{"name":"pat","password":"correct horse"}"#)))
        let phoneStream = try SSEClient(port: app.port, token: nil, topics: "badge", headers: ["Cookie: tailor_session=\(phone)"])
        let laptopStream = try SSEClient(port: app.port, token: nil, topics: "badge", headers: ["Cookie: tailor_session=\(laptop)"])
        let scriptStream = try SSEClient(port: app.port, token: accountToken, topics: "badge")
        for stream in [phoneStream, laptopStream, scriptStream] { _ = try stream.next() }

        let script = try app.client()
        script.token = accountToken
        let sessions = try script.get("/api/sessions").json["items"] as? [[String: Any]] ?? []
        let phoneID = try #require(sessions.last?["id"] as? String)
        #expect(try script.send("DELETE", "/api/sessions/\(phoneID)").status == 204)
        #expect(phoneStream.waitForEnd())

        #expect(try script.send("PUT", "/api/me/password", json: #"{"password":"battery staple","current":"correct horse"}"#).status == 204)
        #expect(laptopStream.waitForEnd())
        // A stream leaves before its socket closes.
        #expect(app.application.streamCount == 1)
    }

    /// A session unused for longer than the idle time ends (and stays ended);
    /// one in use goes on; the account token does not expire.
    @Test func anIdleSessionEnds() throws {
        let app = try TestApp { $0.sessionIdleTime = 1_500 }
        let signUp = try app.client().send("POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#)
        let accountToken = try #require(signUp.json["token"] as? String)
        let idle = try #require(sessionToken(signUp))
        let busy = try #require(sessionToken(try app.client().send("POST", "/api/session", json: #"{"name":"pat","password":"correct horse"}"#)))
        let client = try app.client()
        for _ in 0..<10 {
            #expect(try client.get("/api/me", headers: ["Cookie: tailor_session=\(busy)"]).status == 200)
            usleep(200_000)
        }
        let expired = try client.get("/api/me", headers: ["Cookie: tailor_session=\(idle)"])
        #expect(expired.status == 401)
        #expect(String(decoding: expired.body, as: UTF8.self).contains("not used for too long"))
        #expect(try client.get("/api/me", headers: ["Cookie: tailor_session=\(idle)"]).status == 401)
        #expect(try client.get("/api/me", headers: ["Cookie: tailor_session=\(busy)"]).status == 200)
        #expect(try client.get("/api/me", headers: ["Authorization: Bearer \(accountToken)"]).status == 200)
        // Ended in the store too, before the 401: the account lists one session.
        let sessions = try app.client().get("/api/sessions", headers: ["Authorization: Bearer \(accountToken)"]).json["items"] as? [[String: Any]]
        #expect(sessions?.count == 1)
    }

    @Test func anAccountWithoutAPasswordMaySetOne() throws {
        let app = try TestApp()
        let sam = try app.user("sam")
        #expect(try sam.send("PUT", "/api/me/password", json: #"{"password":"first of mine"}"#).status == 204)
        #expect(try app.client().send("POST", "/api/session", json: #"{"name":"sam","password":"first of mine"}"#).status == 200)
    }

    @Test func onlyAHashIsStored() throws {
        let app = try TestApp()
        _ = try app.client().send("POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#)
        app.application.shutdown()
        let stored = try String(decoding: Data(contentsOf: app.folder.appendingPathComponent("tailor.sqlite")), as: UTF8.self)
        #expect(!stored.contains("correct horse"))
        #expect(stored.contains("scrypt$32768$8$1$"))
    }
}
