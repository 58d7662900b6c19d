import Foundation
import TailorApp
import TailorTestSupport
import Testing

/// What a hostile or careless client meets: requests that could be read two
/// ways are refused, ids are never handed out twice, and a client waiting for
/// `100 Continue` hears a final answer the head already decides.
@Suite struct HardeningTests {
    static let order = #"{"name":"Tea","items":[{"title":"Green tea","quantity":1,"priceCents":250}]}"#

    @Test func aMalformedEscapeInTheQueryIsRefusedNotDropped() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        try #require(try alice.send("POST", "/api/orders", json: Self.order).status == 201)
        for query in ["q=%zz", "q=%", "q=%00", "q=tea%E2"] {
            // A malformed target ends its connection: each is sent on a new one.
            let client = try app.client()
            client.token = alice.token
            let response = try client.get("/api/orders?\(query)")
            #expect(response.status == 400, "\(query)")
        }
        #expect(try alice.get("/api/orders?q=%67reen").json["count"] as? Int == 1)
    }

    @Test func aKeyTwiceInABodyIsRefused() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let id = try #require(try alice.send("POST", "/api/orders", json: Self.order).json["id"] as? String)
        let response = try alice.send("PATCH", "/api/orders/\(id)", json: #"{"status":"paid","status":"cancelled"}"#)
        #expect(response.status == 400)
        #expect(response.text.contains("malformed_json") && response.text.contains("status"))
        #expect(try alice.get("/api/orders/\(id)").json["status"] as? String == "placed")
    }

    @Test func aNumberPastEveryRangeIsAnInvalidFieldNotMalformedJSON() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let response = try alice.send("POST", "/api/orders", json: #"{"name":"Tea","items":[{"title":"Tea","quantity":1e999,"priceCents":1}]}"#)
        #expect(response.status == 422)
    }

    @Test func aSecondAuthorizationFieldIsRefused() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let bob = try app.user("bob")
        let client = try app.client()
        try client.connection.send("GET /api/me HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(alice.token!)\r\nAuthorization: Bearer \(bob.token!)\r\n\r\n")
        #expect(try client.connection.readResponse().status == 400)
    }

    @Test func anIdIsNeverGivenTwice() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        try #require(try alice.send("POST", "/api/orders", json: Self.order).status == 201)
        let newest = try #require(try alice.send("POST", "/api/orders", json: Self.order).json["id"] as? String)
        #expect(try alice.send("DELETE", "/api/orders/\(newest)").status == 204)
        let next = try #require(try alice.send("POST", "/api/orders", json: Self.order).json["id"] as? String)
        #expect(next != newest)
        #expect(Int(next)! > Int(newest)!)
    }

    /// RFC 9110 §10.1.1: a server that already knows its final answer sends it
    /// instead of `100 Continue`, and the client keeps its body.
    @Test(arguments: [
        ("POST /api/orders", "", 401),
        ("POST /api/nothing", "", 404),
        ("PUT /api/orders", "", 405),
    ])
    func aKnownFinalAnswerComesInsteadOfContinue(request: String, fields: String, status: Int) throws {
        let app = try TestApp()
        let client = try RawClient(port: app.port)
        try client.send("\(request) HTTP/1.1\r\nHost: t\r\n\(fields)Content-Type: application/json\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == status)
    }

    /// A token the server does not remember is looked up before the body, on
    /// a reader thread, whichever the database.
    @Test(arguments: Backend.allCases)
    func anUnknownTokenIsRefusedInsteadOfContinue(backend: Backend) throws {
        let app = try TestApp(backend: backend)
        let client = try RawClient(port: app.port)
        try client.send("POST /api/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer not-a-token\r\nContent-Type: application/json\r\n"
            + "Content-Length: 10\r\nExpect: 100-continue\r\n\r\n")
        #expect(try client.readResponse().status == 401)
    }

    @Test func continueStillComesForAnAcceptableRequest() throws {
        let app = try TestApp()
        let alice = try app.user("alice")
        let client = try RawClient(port: app.port)
        let body = Array(Self.order.utf8)
        try client.send("POST /api/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(alice.token!)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
        #expect(try client.readHead().status == 100)
        try client.send(body)
        #expect(try client.readResponse().status == 201)
    }

    @Test func readinessCommitsAWrite() throws {
        let app = try TestApp()
        let response = try app.client().get("/readyz")
        #expect(response.status == 200)
        #expect(response.text == #"{"status":"ready"}"#)
    }

    @Test func writesPastTheUsersRateGet429() throws {
        let app = try TestApp { $0.writeLimit = RateLimit(perSecond: 0.5, burst: 3) }
        let alice = try app.user("alice")
        for _ in 0..<3 { #expect(try alice.send("POST", "/api/orders", json: Self.order).status == 201) }
        let refused = try alice.send("POST", "/api/orders", json: Self.order)
        #expect(refused.status == 429)
        #expect(refused.errorCode == "rate_limited")
        #expect(refused.header("retry-after") == "2")
        // Reads are not writes, and another user has a bucket of their own.
        #expect(try alice.get("/api/orders").json["count"] as? Int == 3)
        let bob = try app.user("bob")
        #expect(try bob.send("POST", "/api/orders", json: Self.order).status == 201)
    }

    @Test func signUpsPastTheAddressRateGet429() throws {
        let app = try TestApp { $0.accountLimit = RateLimit(perSecond: 0.01, burst: 2) }
        _ = try app.user("alice")
        _ = try app.user("bob")
        let refused = try app.client().send("POST", "/api/users", json: #"{"name":"carol"}"#)
        #expect(refused.status == 429)
        #expect(refused.header("retry-after") == "100")
    }
}
