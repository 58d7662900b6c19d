import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// Another server stopped in the middle of a commit (frozen, cut off), its
/// transaction open and holding a chat's lock or a message's client id: the
/// writes that need what it holds wait a bounded time and are answered 503,
/// every other write commits, and readiness stays true. Here the other
/// server is a connection of the test's own that holds the same locks a
/// batch's first round trip takes.
@Suite struct LockHeldElsewhereTests {
    /// A transaction left open by "another server", holding what `statement` locks.
    private static func holder(_ location: DatabaseLocation, _ statement: String, _ values: any DatabaseBindable...) throws -> PostgresConnection {
        guard case .postgres(let url) = location else { throw TestSkipped() }
        let connection = try PostgresConnection(url: url)
        // Held as long as the test needs, whatever this connection's settings end idle transactions after.
        try connection.execute("SET idle_in_transaction_session_timeout = 0")
        try connection.execute("BEGIN")
        try connection.run(statement, binding: values)
        return connection
    }

    private struct TestSkipped: Error {}

    /// A server with a short lock wait, alice's chat with bob, and alice's chat with carol beside it.
    private static func aliceWithTwoChats() throws -> (DatabaseLocation, TestApp, alice: APIClient, bob: APIClient, chatID: String, otherChat: String) {
        let location = try TestDatabase.fresh(.postgres)
        let app = try TestApp(database: location) { $0.lockWait = .milliseconds(200) }
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        _ = try app.user("carol")
        return (location, app, alice, bob, chatID, try MultiInstanceTests.chat(between: alice, and: "carol"))
    }

    @Test func aReadMarkOfAChatHeldElsewhereIsRefusedAndOtherChatsCommit() throws {
        let (location, app, alice, bob, chatID, otherChat) = try Self.aliceWithTwoChats()
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"hi"}"#).status == 201)
        // As a message of another server's open batch holds its chat.
        let other = try Self.holder(location, "SELECT id FROM chats WHERE id = ? FOR KEY SHARE", try #require(Int(chatID)))

        let refused = try bob.send("POST", "/api/chats/\(chatID)/read")
        #expect(refused.status == 503)
        #expect(refused.header("retry-after") == "1")
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "unavailable")
        // Known held now: refused without a wait of its own, and again.
        #expect(try bob.send("POST", "/api/chats/\(chatID)/read").status == 503)
        // Every other chat's writes commit, and messages share the held lock.
        #expect(try alice.send("POST", "/api/chats/\(otherChat)/messages", json: #"{"text":"to carol"}"#).status == 201)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"again"}"#).status == 201)
        #expect(try app.client().get("/readyz").status == 200)

        try other.execute("ROLLBACK")
        let read = try bob.send("POST", "/api/chats/\(chatID)/read")
        #expect(read.status == 200)
        #expect(read.json["read"] as? Int == 2)
    }

    @Test func aRetryOfAMessageInAnotherServersOpenBatchFailsAloneAndIsStoredOnce() throws {
        let (location, app, alice, _, chatID, otherChat) = try Self.aliceWithTwoChats()
        let sender = try #require((try alice.get("/api/me").json["user"] as? [String: Any])?["id"] as? String)
        // The first try of the message, sent through another server whose batch has not committed.
        let other = try Self.holder(location, """
            INSERT INTO messages (chat_id, sender_id, text, client_id, sent_at) VALUES (?, ?, 'once', 'c-1', 0)
            """, try #require(Int(chatID)), try #require(Int(sender)))

        let retried = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"once","clientId":"c-1"}"#)
        #expect(retried.status == 503)
        #expect(retried.header("retry-after") == "1")
        #expect(try alice.send("POST", "/api/chats/\(otherChat)/messages", json: #"{"text":"to carol"}"#).status == 201)
        #expect(try app.client().get("/readyz").status == 200)

        try other.execute("COMMIT")
        let again = try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"once","clientId":"c-1"}"#)
        #expect(again.status == 200)
        let verify = try TestDatabase.connection(to: location)
        #expect(try verify.first("SELECT count(*) FROM messages WHERE client_id = 'c-1'", binding: []) { $0.int(0) } == 1)
    }

    /// After a lock wait ran out the writer waits only briefly for any lock,
    /// until twice the idle-transaction timeout has passed since the last
    /// one ran out: with `--idle-transaction-timeout 1` that is 2 s, not the
    /// 10 s PostgreSQL's default gives. Each probe is a message to another
    /// chat the other server's batch holds: answered after the brief wait
    /// while the window lasts, after the whole lock wait once it is over.
    @Test func theBriefLockWaitsLastTwiceTheIdleTransactionTimeout() throws {
        let location = try TestDatabase.fresh(.postgres)
        let lockWait = 1.5
        let app = try TestApp(database: location) {
            $0.lockWait = .seconds(lockWait)
            $0.idleTransactionTimeout = .seconds(1)
        }
        let alice = try app.user("alice")
        let chats = try (0..<3).map { index in
            _ = try app.user("contact\(index)")
            return try #require(Int(try MultiInstanceTests.chat(between: alice, and: "contact\(index)")))
        }
        let other = try Self.holder(location, "SELECT id FROM chats WHERE id = ANY(CAST(? AS bigint[])) FOR UPDATE",
                                    "{" + chats.map(String.init).joined(separator: ",") + "}")
        func probe(_ chat: Int) throws -> Double {
            let started = Date()
            #expect(try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"probe"}"#).status == 503)
            return Date().timeIntervalSince(started)
        }
        #expect(try probe(chats[0]) >= lockWait)
        #expect(try probe(chats[1]) < lockWait * 0.8, "the lock wait after one ran out was not brief")
        // Sleeps: only time ends the window, and a probe within it (a brief
        // wait run out) would begin it again.
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try probe(chats[2]) >= lockWait, "lock waits were still brief 2.5 s after the last ran out")
        try other.execute("ROLLBACK")
    }
}
