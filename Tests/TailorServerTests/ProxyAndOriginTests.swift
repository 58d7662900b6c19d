import Foundation
import TailorApp
import TailorHTTP
import TailorLoop
import Testing

/// Behind a trusted proxy the forwarded client address and scheme are
/// believed, from anyone else they are not; pages of allowed origins may call
/// the API with credentials (CORS), others get no such fields.
@Suite struct ProxyAndOriginTests {
    @Test func aTrustedProxysForwardedClientIsLoggedAndRateLimitedAndGetsSecureCookies() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-proxy-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let app = try TestApp {
            $0.accessLog = log.path
            $0.trustedProxies = [AddressRange(text: "127.0.0.0/8")!]
            $0.accountLimit = RateLimit(perSecond: 0.001, burst: 2)
        }
        let client = try app.client()
        func signUp(_ name: String, from address: String, proto: String = "http") throws -> TestResponse {
            try client.send("POST", "/api/users", json: #"{"name":"\#(name)"}"#,
                            headers: ["X-Forwarded-For: 203.0.113.9, \(address)", "X-Forwarded-Proto: \(proto)"])
        }
        // Two sign-ups from one forwarded client, the third is refused; another client is not.
        let first = try signUp("one", from: "198.51.100.7", proto: "https")
        #expect(first.status == 201)
        #expect(first.header("set-cookie")?.contains("; Secure") == true)
        #expect(try signUp("two", from: "198.51.100.7").header("set-cookie")?.contains("Secure") == false)
        #expect(try signUp("three", from: "198.51.100.7").status == 429)
        #expect(try signUp("four", from: "198.51.100.8").status == 201)
        app.application.flushAccessLog()
        let peers = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["peer"] as? String
        }
        #expect(peers == ["198.51.100.7", "198.51.100.7", "198.51.100.7", "198.51.100.8"])
    }

    @Test func anUntrustedPeersForwardedFieldsAreIgnored() throws {
        let app = try TestApp { $0.accountLimit = RateLimit(perSecond: 0.001, burst: 1) }
        let client = try app.client()
        let first = try client.send("POST", "/api/users", json: #"{"name":"one"}"#, headers: ["X-Forwarded-For: 198.51.100.1", "X-Forwarded-Proto: https"])
        #expect(first.status == 201)
        #expect(first.header("set-cookie")?.contains("Secure") == false)
        // Another claimed address changes nothing: the connection's address counts.
        #expect(try client.send("POST", "/api/users", json: #"{"name":"two"}"#, headers: ["X-Forwarded-For: 198.51.100.2"]).status == 429)
    }

    @Test func allowedOriginsMayCallWithCredentialsOthersMayNot() throws {
        let app = try TestApp { $0.allowedOrigins = ["https://app.example.com"] }
        let alice = try app.user("alice")
        let preflight = try alice.send("OPTIONS", "/api/chats", headers: [
            "Origin: https://app.example.com", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: content-type"])
        #expect(preflight.status == 204)
        #expect(preflight.header("access-control-allow-origin") == "https://app.example.com")
        #expect(preflight.header("access-control-allow-credentials") == "true")
        #expect(preflight.header("access-control-allow-methods")?.contains("POST") == true)
        let read = try alice.send("GET", "/api/chats", headers: ["Origin: https://app.example.com"])
        #expect(read.status == 200)
        #expect(read.header("access-control-allow-origin") == "https://app.example.com")
        #expect(read.headers.contains { $0.name.lowercased() == "vary" && $0.value.contains("Origin") })
        // Another origin: no permission, and no preflight approval.
        #expect(try alice.send("GET", "/api/chats", headers: ["Origin: https://evil.example"]).header("access-control-allow-origin") == nil)
        let refused = try alice.send("OPTIONS", "/api/chats", headers: ["Origin: https://evil.example", "Access-Control-Request-Method: POST"])
        #expect(refused.header("access-control-allow-origin") == nil)
        // An event stream for a page of the allowed origin says it may read it.
        let stream = try SSEClient(port: app.port, token: alice.token, topics: "badge", headers: ["Origin: https://app.example.com"])
        #expect(stream.response.header("access-control-allow-origin") == "https://app.example.com")
    }

    @Test func withoutAllowedOriginsNoAnswerCarriesCORSFields() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        #expect(try alice.send("GET", "/api/chats", headers: ["Origin: https://app.example.com"]).header("access-control-allow-origin") == nil)
        #expect(try alice.send("OPTIONS", "/api/chats", headers: ["Origin: https://app.example.com", "Access-Control-Request-Method: POST"]).status == 405)
    }

    /// The gaps of the first CORS version: `PUT` in the preflight, `Vary:
    /// Origin` on every answer, the fields on an answer given before the
    /// body, and origins configured as a person writes them.
    @Test func crossOriginAnswersAreWholeAndOriginsMatchAsBrowsersWriteThem() throws {
        let app = try TestApp {
            $0.allowedOrigins = ["https://APP.EXAMPLE.COM", "https://a.example:443", "http://b.example:8080/"]
            $0.server.maxBodyBytes = 1_000
        }
        let alice = try app.user("alice")
        let preflight = try alice.send("OPTIONS", "/api/me/password", headers: [
            "Origin: https://app.example.com", "Access-Control-Request-Method: PUT"])
        #expect(preflight.header("access-control-allow-methods")?.contains("PUT") == true)
        for origin in ["https://a.example", "http://b.example:8080"] {
            #expect(try alice.send("GET", "/api/me", headers: ["Origin: \(origin)"]).header("access-control-allow-origin") == origin)
        }
        let other = try alice.send("GET", "/api/me", headers: ["Origin: https://evil.example"])
        #expect(other.headers.contains { $0.name.lowercased() == "vary" && $0.value.contains("Origin") })
        let tooLarge = try alice.send("POST", "/api/orders", json: String(repeating: " ", count: 2_000), headers: ["Origin: https://app.example.com"])
        #expect(tooLarge.status == 413)
        #expect(tooLarge.header("access-control-allow-origin") == "https://app.example.com")
    }

    /// Two session cookies of one name are refused, whichever is first; over
    /// HTTPS the cookie is a `__Host-` one, which no sibling domain can set.
    @Test func aPlantedSecondSessionCookieIsRefusedAndHTTPSCookiesAreHostOnly() throws {
        let app = try TestApp { $0.trustedProxies = [AddressRange(text: "127.0.0.1")!] }
        let client = try app.client()
        let alice = try client.send("POST", "/api/users", json: #"{"name":"alice"}"#, headers: ["X-Forwarded-Proto: https"])
        let cookie = try #require(alice.header("set-cookie"))
        #expect(cookie.hasPrefix("__Host-tailor_session="))
        #expect(cookie.contains("; Secure") && cookie.contains("; Path=/") && !cookie.contains("Domain"))
        let aliceToken = try #require(AccountAPITests.sessionToken(alice))
        let mallory = try #require(AccountAPITests.sessionToken(try client.send("POST", "/api/users", json: #"{"name":"mallory"}"#)))
        let me = { (cookies: String) throws -> TestResponse in try app.client().get("/api/me", headers: ["Cookie: \(cookies)"]) }
        #expect(try me("__Host-tailor_session=\(aliceToken)").status == 200)
        #expect(try me("tailor_session=\(mallory); tailor_session=\(aliceToken)").status == 401)
        #expect(try me("tailor_session=\(mallory); __Host-tailor_session=\(aliceToken)").json["user"].map { ($0 as? [String: Any])?["name"] as? String } == "alice")
        #expect(try me("tailor_session=\(mallory); tailor_session=\(mallory)").status == 200)
    }
}
