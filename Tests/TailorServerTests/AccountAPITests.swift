import Foundation
import TailorTestSupport
import Testing

/// Sign-up, tokens, the session cookie, and the order of checks: route, then credentials.
@Suite struct AccountAPITests {
    @Test(arguments: Backend.allCases)
    func signUpGivesATokenACookieAndMe(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let client = try app.client()
        let response = try client.send("POST", "/api/users", json: #"{"name":"Alice_1"}"#)
        #expect(response.status == 201)
        let user = try #require(response.json["user"] as? [String: Any])
        #expect(user["name"] as? String == "Alice_1")
        #expect(user["id"] is String)
        let token = try #require(response.json["token"] as? String)
        #expect(token.count >= 32)
        let cookie = try #require(response.header("set-cookie"))
        #expect(cookie.hasPrefix("tailor_session="))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        // The browser's session has a token of its own, not the account's.
        let session = try #require(cookie.split(separator: ";").first?.split(separator: "=").last.map(String.init))
        #expect(session != token)

        // The cookie alone authenticates, as it does for a browser's EventSource.
        let browser = try app.client()
        let me = try browser.get("/api/me", headers: ["Cookie: other=1; tailor_session=\(session)"])
        #expect(me.status == 200)
        #expect((me.json["user"] as? [String: Any])?["name"] as? String == "Alice_1")
    }

    @Test(arguments: [
        (#"{"name":""}"#, 422), (#"{"name":"has space"}"#, 422), (#"{"name":"ünïcode"}"#, 422),
        (#"{"name":"\#(String(repeating: "a", count: 33))"}"#, 422), (#"{"name":5}"#, 422), (#"{}"#, 422),
        (#"["alice"]"#, 422), (#"{"name":"#, 400), (#"{"name":"bot"}"#, 409), (#"{"name":"BOT"}"#, 409),
    ])
    func badNamesAreRefused(body: String, status: Int) throws {
        let app = try TestApp()
        let response = try app.client().send("POST", "/api/users", json: body)
        #expect(response.status == status, "\(body)")
        #expect(response.errorCode != nil)
    }

    /// `Bearer` in any case, with any spaces before the token (RFC 9110
    /// §11.1); any other scheme, or no token, is no credential.
    @Test func theBearerSchemeIsReadInAnyCase() throws {
        let app = try TestApp()
        let token = try #require(try app.client().send("POST", "/api/users", json: #"{"name":"erin"}"#).json["token"] as? String)
        for field in ["Bearer \(token)", "bEaReR \(token)", "BEARER   \(token)", "Bearer \t\(token)  "] {
            #expect(try app.client().get("/api/me", headers: ["Authorization: \(field)"]).status == 200, "\(field)")
        }
        for field in ["Basic \(token)", "Bearer", "Bearer   ", "Bearer\(token)", "Bearers \(token)", "Bearer x\(token)"] {
            let answer = try app.client().get("/api/me", headers: ["Authorization: \(field)"])
            #expect(answer.status == 401, "\(field)")
        }
    }

    @Test(arguments: Backend.allCases)
    func namesAreUniqueIgnoringCase(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        _ = try app.user("carol")
        let again = try app.client().send("POST", "/api/users", json: #"{"name":"CAROL"}"#)
        #expect(again.status == 409)
        #expect(again.errorCode == "name_taken")
    }

    @Test(arguments: Backend.allCases)
    func aBodyWithoutJSONContentTypeIs415(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let response = try app.client().send("POST", "/api/users", json: #"{"name":"dave"}"#, contentType: "text/plain")
        #expect(response.status == 415)
    }

    @Test(arguments: Backend.allCases)
    func credentialsAreCheckedAfterRouting(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let anonymous = try app.client()
        #expect(try anonymous.get("/api/nothing-here").status == 404)
        #expect(try anonymous.send("PUT", "/api/chats").status == 405)
        let missing = try anonymous.get("/api/me")
        #expect(missing.status == 401)
        #expect(missing.errorCode == "unauthorized")
        anonymous.token = "0000"
        #expect(try anonymous.get("/api/chats").status == 401)
        #expect(try app.client().get("/healthz").status == 200)
    }

    @Test(arguments: Backend.allCases)
    func signInWithATokenAndSignOut(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let alice = try app.user("alice")
        let newBrowser = try app.client()
        let signedIn = try newBrowser.send("POST", "/api/session", json: #"{"token":"\#(alice.token!)"}"#)
        #expect(signedIn.status == 200)
        #expect(signedIn.header("set-cookie")?.hasPrefix("tailor_session=") == true)
        #expect(Self.sessionToken(signedIn) != alice.token)
        #expect(try newBrowser.send("POST", "/api/session", json: #"{"token":"nope"}"#).status == 401)
        let signedOut = try alice.send("DELETE", "/api/session")
        #expect(signedOut.status == 204)
        #expect(signedOut.header("set-cookie")?.contains("Max-Age=0") == true)
        #expect(signedOut.header("clear-site-data") == #""cache""#, "the browser keeps the person's earlier answers")
    }

    /// Signing out ends that browser's session on the server; the account's
    /// token, and other sessions, go on working.
    @Test(arguments: Backend.allCases)
    func signOutEndsTheSessionNotTheAccount(_ backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let signUp = try app.client().send("POST", "/api/users", json: #"{"name":"erin"}"#, headers: ["User-Agent: Phone/1"])
        let token = try #require(signUp.json["token"] as? String)
        let phone = try #require(Self.sessionToken(signUp))
        let signIn = try app.client().send("POST", "/api/session", json: #"{"token":"\#(token)"}"#, headers: ["User-Agent: Laptop/2"])
        #expect(signIn.status == 200)
        let laptop = try #require(Self.sessionToken(signIn))
        #expect(laptop != phone && laptop != token)

        let script = try app.client()
        script.token = token
        let listed = try script.get("/api/sessions").json["items"] as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["userAgent"] as? String } == ["Laptop/2", "Phone/1"])
        #expect(listed.allSatisfy { $0["current"] as? Bool == false && $0["createdAt"] is String && $0["lastSeenAt"] is String })
        let mine = try app.client().get("/api/sessions", headers: ["Cookie: tailor_session=\(phone)"]).json["items"] as? [[String: Any]] ?? []
        #expect(mine.first { $0["userAgent"] as? String == "Phone/1" }?["current"] as? Bool == true)

        let out = try app.client().send("DELETE", "/api/session", headers: ["Cookie: tailor_session=\(phone)"])
        #expect(out.status == 204)
        #expect(out.header("set-cookie")?.contains("Max-Age=0") == true)
        #expect(try app.client().get("/api/me", headers: ["Cookie: tailor_session=\(phone)"]).status == 401)
        #expect(try app.client().get("/api/me", headers: ["Cookie: tailor_session=\(laptop)"]).status == 200)
        #expect(try script.get("/api/me").status == 200)

        // One session ends another; an id that is not theirs is 404.
        let laptopID = try #require((try script.get("/api/sessions").json["items"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try script.send("DELETE", "/api/sessions/\(laptopID)").status == 204)
        #expect(try app.client().get("/api/me", headers: ["Cookie: tailor_session=\(laptop)"]).status == 401)
        #expect(try script.send("DELETE", "/api/sessions/\(laptopID)").status == 404)
        let other = try app.user("frank")
        let franksSession = try #require((try other.get("/api/sessions").json["items"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try script.send("DELETE", "/api/sessions/\(franksSession)").status == 404)
        #expect(try script.get("/api/me").status == 200)
    }

    static func sessionToken(_ response: TestResponse) -> String? {
        response.header("set-cookie")?.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init)
    }
}
