import Foundation
import Testing

/// `X-Request-ID`: the client's usable one is answered back; otherwise one
/// is made where something records it (an access log, a 5xx's log line).
/// With `--access-log` every answered request is a JSON line.
@Suite struct AccessLogTests {
    @Test func aUsableRequestIDIsAnsweredBackAndNoOtherIsEchoed() throws {
        let app = try TestApp()
        let client = try app.client()
        #expect(try client.get("/healthz", headers: ["X-Request-ID: proxy-7.a:b_c"]).header("x-request-id") == "proxy-7.a:b_c")
        for unusable in ["has space", String(repeating: "a", count: 129), "quote\"d", "ümlaut"] {
            #expect(try client.get("/healthz", headers: ["X-Request-ID: \(unusable)"]).header("x-request-id") == nil)
        }
        // Nothing records an id here: none is made.
        #expect(try client.get("/healthz").header("x-request-id") == nil)
    }

    @Test func withAnAccessLogEveryAnswerHasAnId() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-access-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let app = try TestApp { $0.accessLog = log.path }
        let client = try app.client()
        let first = try #require(try client.get("/healthz").header("x-request-id"))
        let second = try #require(try client.get("/healthz", headers: ["X-Request-ID: not usable"]).header("x-request-id"))
        #expect(first != second && second != "not usable")
        app.application.flushAccessLog()
        let logged = try String(contentsOf: log, encoding: .utf8)
        #expect(logged.contains(#""id":"\#(first)""#) && logged.contains(#""id":"\#(second)""#))
    }

    @Test func theAccessLogHasALineOfJSONPerRequest() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-access-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let app = try TestApp { $0.accessLog = log.path }
        let alice = try app.user("alice")
        try alice.send("GET", "/api/chats?offset=0", headers: ["X-Request-ID: mine-1"])
        try alice.send("GET", "/api/chats/424242")
        _ = try app.client().get("/api/badge")
        app.application.flushAccessLog()

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let entries = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(entries.count == 4, "sign-up, two reads and one refused: \(lines)")
        for entry in entries {
            #expect(Set(entry.keys) == ["id", "method", "path", "peer", "route", "status", "ms", "time", "user"])
            #expect(entry["peer"] as? String == "127.0.0.1")
            #expect((entry["ms"] as? Double).map { $0 >= 0 } == true)
        }
        let mine = try #require(entries.first { $0["id"] as? String == "mine-1" })
        #expect(mine["path"] as? String == "/api/chats", "the query is not logged")
        #expect(mine["route"] as? String == "/api/chats")
        #expect(mine["status"] as? Int == 200)
        #expect(mine["user"] as? Int != nil)
        let missing = try #require(entries.first { $0["path"] as? String == "/api/chats/424242" })
        #expect(missing["route"] as? String == "/api/chats/{id}")
        #expect(missing["status"] as? Int == 404)
        let anonymous = try #require(entries.first { $0["path"] as? String == "/api/badge" })
        #expect(anonymous["status"] as? Int == 401)
        #expect(anonymous["user"] is NSNull)
    }
}
