import Foundation
import TailorApp
import TailorHTTP
import TailorLoop
import TailorTestSupport
import Testing

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

    /// A client sending `request` from `address`, through a trusted proxy on 127.0.0.1.
    private func send(_ app: TestApp, _ method: String = "POST", _ path: String = "/api/session", json: String, from address: String,
                      headers: [String] = []) throws -> TestResponse {
        try app.client().send(method, path, json: json, headers: ["X-Forwarded-For: \(address)"] + headers)
    }

    private func behindAProxy(_ configure: @escaping (inout TailorConfiguration) -> Void = { _ in }) throws -> TestApp {
        try TestApp {
            $0.trustedProxies = [AddressRange(text: "127.0.0.1")!]
            $0.accountLimit = .unlimited
            configure(&$0)
        }
    }

    /// Tries of one name are limited per address: the guesser waits, the
    /// owner from elsewhere does not, until the much larger allowance for the
    /// name from all addresses is spent.
    @Test func aGuesserOfANameIsSlowedAndItsOwnerIsNot() throws {
        let app = try behindAProxy {
            $0.passwordAttemptLimit = RateLimit(perSecond: 0.001, burst: 3)
            $0.passwordNameLimit = RateLimit(perSecond: 0.001, burst: 6)
        }
        _ = try send(app, "POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#, from: "198.51.100.1")
        for _ in 0..<3 {
            #expect(try send(app, json: #"{"name":"pat","password":"guess guess"}"#, from: "203.0.113.66").status == 401)
        }
        let limited = try send(app, json: #"{"name":"PAT","password":"correct horse"}"#, from: "203.0.113.66")
        #expect(limited.status == 429)
        #expect(Int(limited.header("retry-after") ?? "") ?? 0 > 0)
        #expect(try send(app, json: #"{"name":"pat","password":"correct horse"}"#, from: "198.51.100.1").status == 200)
        // Past the name's allowance from all addresses, every address waits.
        for address in ["203.0.113.67", "203.0.113.68"] {
            #expect(try send(app, json: #"{"name":"pat","password":"guess guess"}"#, from: address).status == 401)
        }
        #expect(try send(app, json: #"{"name":"pat","password":"correct horse"}"#, from: "198.51.100.1").status == 429)
    }

    /// Addresses inside one IPv6 /64 are one client to the limits.
    @Test func oneIPv6NetworkIsOneClient() throws {
        let app = try behindAProxy { $0.passwordAttemptLimit = RateLimit(perSecond: 0.001, burst: 3) }
        _ = try send(app, "POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#, from: "198.51.100.1")
        for host in 1...3 {
            #expect(try send(app, json: #"{"name":"pat","password":"guess guess"}"#, from: "2001:db8:1:2::\(host)").status == 401)
        }
        #expect(try send(app, json: #"{"name":"pat","password":"guess guess"}"#, from: "2001:db8:1:2:ffff::9").status == 429)
        #expect(try send(app, json: #"{"name":"pat","password":"correct horse"}"#, from: "2001:db8:1:3::1").status == 200)
    }

    /// Checking the current password when changing it counts as a try.
    @Test func wrongCurrentPasswordsCountAsTries() throws {
        let app = try behindAProxy { $0.passwordAttemptLimit = RateLimit(perSecond: 0.001, burst: 3) }
        let signUp = try send(app, "POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#, from: "198.51.100.1")
        let token = try #require(signUp.json["token"] as? String)
        let statuses = try (0..<4).map { _ in
            try send(app, "PUT", "/api/me/password", json: #"{"password":"battery staple","current":"guess guess"}"#, from: "203.0.113.66",
                     headers: ["Authorization: Bearer \(token)"]).status
        }
        #expect(statuses == [422, 422, 422, 429])
    }

    /// A name no account can have, or a password longer than any account's,
    /// is answered at once: nothing is hashed, counted or kept for it.
    @Test func namesNoAccountCanHaveAreNotCountedOrKept() throws {
        let app = try TestApp { $0.passwordAttemptLimit = RateLimit(perSecond: 0.001, burst: 3) }
        let long = String(repeating: "x", count: 100_000)
        let flags = String(repeating: "🇩🇪", count: 8_000)
        for name in [long, long, long, long, flags, "pat\n2099-01-01T00:00:00+0000 critical: forged"] {
            let body = #"{"name":"\#(name.replacingOccurrences(of: "\n", with: "\\n"))","password":"guess guess"}"#
            #expect(try app.client().send("POST", "/api/session", json: body).status == 401)
        }
        let tooLong = #"{"name":"pat","password":"\#(String(repeating: "x", count: 100_000))"}"#
        for _ in 0..<4 { #expect(try app.client().send("POST", "/api/session", json: tooLong).status == 401) }
    }

    /// Hashes wait in a bounded queue with a share per address: one address
    /// sending many sign-ins at once is refused past its share, and another
    /// address's sign-in is served in its turn.
    @Test func oneAddressCannotQueueMorePasswordWorkThanItsShare() throws {
        let app = try behindAProxy { $0.passwordAttemptLimit = .unlimited; $0.passwordNameLimit = .unlimited }
        _ = try send(app, "POST", "/api/users", json: #"{"name":"pat","password":"correct horse"}"#, from: "198.51.100.1")
        // Twelve guesses sent at once, each on a connection of its own, then the owner's sign-in.
        let body = #"{"name":"pat","password":"guess guess"}"#
        let guesses = try (0..<12).map { _ in try RawClient(port: app.port, timeout: 30) }
        for guess in guesses {
            try guess.send("POST /api/session HTTP/1.1\r\nHost: test\r\nX-Forwarded-For: 203.0.113.66\r\n"
                           + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        #expect(try send(app, json: #"{"name":"pat","password":"correct horse"}"#, from: "198.51.100.1").status == 200)
        let answered = try guesses.map { try $0.readResponse().status }
        #expect(answered.count == 12)
        #expect(answered.filter { $0 == 429 }.count >= 6, "\(answered)")
        #expect(Set(answered).isSubset(of: [401, 429]), "\(answered)")
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
        // The busy session is used every 0.2 s while the idle one stays unused
        // past its idle time, which only time brings.
        var pace = Pace(every: 0.2)
        for _ in 0..<10 {
            #expect(try client.get("/api/me", headers: ["Cookie: tailor_session=\(busy)"]).status == 200)
            pace.wait()
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

    /// "é" as one character at sign-up and as "e" and an accent at sign-in
    /// is one password: both are normalized (NFC) before hashing.
    @Test func aPasswordIsTheSameWhicheverFormItsCharactersCameIn() throws {
        let app = try TestApp()
        #expect(try app.client().send("POST", "/api/users", json: #"{"name":"pat","password":"caf\u00e9 cr\u00e8me"}"#).status == 201)
        #expect(try app.client().send("POST", "/api/session", json: #"{"name":"pat","password":"cafe\u0301 cre\u0300me"}"#).status == 200)
        #expect(try app.client().send("POST", "/api/session", json: #"{"name":"pat","password":"cafe cre\u0300me"}"#).status == 401)
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
