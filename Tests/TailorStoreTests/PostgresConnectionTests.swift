import Foundation
@testable import TailorStore
import TailorTestSupport
import Testing

/// PostgreSQL's connection as it goes over the wire: `BEGIN` goes with the
/// first statement, queued statements with the next exchange and `COMMIT`
/// with a committing last one, counted by a relay between the connection and
/// the test server; what fails in such an exchange fails as it did when each
/// statement went alone; and the settings every connection starts with.
@Suite struct PostgresConnectionTests {
    /// A connection to a fresh database through a relay that counts its round
    /// trips, with a table `t` (a unique `name`) to write. Should it be lost,
    /// it cannot connect again.
    private func relayedConnection() throws -> (PostgresConnection, RoundTripRelay) {
        let location = try TestDatabase.fresh(.postgres)
        let url = try #require({ if case .postgres(let url) = location { url } else { nil } }())
        let portRange = try #require(url.firstRange(of: /127\.0\.0\.1:\d+\//), "the test server listens on loopback")
        let serverPort = try #require(UInt16(url[portRange].dropFirst("127.0.0.1:".count).dropLast()))
        let relay = try RoundTripRelay(toPort: serverPort)
        let connection = try PostgresConnection(url: url.replacingCharacters(in: portRange, with: "127.0.0.1:\(relay.port)/"))
        try connection.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT UNIQUE NOT NULL)")
        return (connection, relay)
    }

    /// The round trips `body` took.
    private func roundTrips(of relay: RoundTripRelay, _ body: () throws -> Void) rethrows -> Int {
        let before = relay.turns
        try body()
        return relay.turns - before
    }

    private func names(on connection: PostgresConnection) throws -> [String] {
        try connection.query("SELECT name FROM t ORDER BY id") { $0.text(0) }
    }

    @Test func aWriteOfTwoStatementsAndItsCommitTakesTwoRoundTrips() throws {
        let (connection, relay) = try relayedConnection()
        // Once, so that the statements are prepared (one round trip each, the first time only).
        try connection.transaction {
            try connection.run("INSERT INTO t (name) VALUES (?)", "warm")
            _ = try connection.firstCommitting("INSERT INTO t (name) VALUES (?) RETURNING id", "up") { $0.int(0) }
        }
        var id: Int?
        let trips = try roundTrips(of: relay) {
            try connection.transaction {
                try connection.run("INSERT INTO t (name) VALUES (?)", "a")
                id = try connection.firstCommitting("INSERT INTO t (name) VALUES (?) RETURNING id", "b") { $0.int(0) }
            }
        }
        #expect(trips == 2)
        #expect(id == 4)
        #expect(try names(on: connection) == ["warm", "up", "a", "b"])
    }

    @Test func aReadTransactionOfOneQueryTakesTwoRoundTrips() throws {
        let (connection, relay) = try relayedConnection()
        _ = try connection.first("SELECT count(*) FROM t") { $0.int(0) }
        var count: Int?
        let trips = try roundTrips(of: relay) {
            count = try connection.readTransaction { try connection.first("SELECT count(*) FROM t") { $0.int(0) } }
        }
        #expect(trips == 2)
        #expect(count == 0)
    }

    @Test func aTransactionThatRanNothingSendsNothing() throws {
        let (connection, relay) = try relayedConnection()
        #expect(try roundTrips(of: relay) { try connection.transaction {} } == 0)
    }

    @Test func aStatementRefusedWithItsBeginUndoesTheTransactionAndTheConnectionGoesOn() throws {
        let (connection, _) = try relayedConnection()
        try connection.transaction { _ = try connection.run("INSERT INTO t (name) VALUES (?)", "taken") }
        let refused = #expect(throws: PostgresError.self) {
            try connection.transaction { _ = try connection.run("INSERT INTO t (name) VALUES (?)", "taken") }
        }
        #expect(refused?.isUniqueViolation == true)
        // Refused as the committing statement: nothing of its transaction stays.
        let refusedLast = #expect(throws: PostgresError.self) {
            try connection.transaction {
                try connection.run("INSERT INTO t (name) VALUES (?)", "undone")
                _ = try connection.firstCommitting("INSERT INTO t (name) VALUES (?) RETURNING id", "taken") { $0.int(0) }
            }
        }
        #expect(refusedLast?.isUniqueViolation == true)
        try connection.transaction { _ = try connection.run("INSERT INTO t (name) VALUES (?)", "after") }
        #expect(try names(on: connection) == ["taken", "after"])
    }

    /// A batch of the event router: its messages queued, their answers read,
    /// then the feed's entry with the commit.
    @Test func aBatchOfThreeMessagesAndItsFeedEntryTakeTwoRoundTrips() throws {
        let (connection, relay) = try relayedConnection()
        try PostgresSchema.migrate(connection)
        let store = Store(connection)
        let alice = try store.insertUser(name: "alice", at: 1)
        let bob = try store.insertUser(name: "bob", at: 1)
        let chat = try store.findOrCreateChat(between: alice.id, and: bob.id, at: 1).chat
        func batch(_ texts: [String]) throws -> [Int] {
            try connection.transaction {
                let sent = texts.map { store.insertMessage(chat: chat.id, sender: alice.id, text: $0, clientID: nil, at: 2) }
                let read = store.markRead(chat: chat.id, reader: bob.id, at: 3)
                let ids = try sent.map { try $0.value().message.id }
                #expect(try read.value() == texts.count, "the read mark ran after the messages, in the order asked")
                _ = try store.appendChangeAndCommit([1], users: [alice.id, bob.id], origin: "test", carried: nil)
                return ids
            }
        }
        _ = try batch(["warm"])
        var ids: [Int] = []
        let trips = try roundTrips(of: relay) { ids = try batch(["one", "two", "three"]) }
        #expect(trips == 2)
        #expect(ids == [2, 3, 4])
        #expect(try connection.query("SELECT text FROM messages ORDER BY id") { $0.text(0) } == ["warm", "one", "two", "three"])
    }

    @Test func aQueuedStatementGoesBeforeTheNextStatementInTheSameRoundTrip() throws {
        let (connection, relay) = try relayedConnection()
        _ = try connection.first("SELECT count(*) FROM t") { $0.int(0) }
        _ = try connection.runLater("INSERT INTO t (name) VALUES (?)", "warm").value()
        var count: Int?
        let trips = try roundTrips(of: relay) {
            let inserted = connection.runLater("INSERT INTO t (name) VALUES (?)", "queued")
            count = try connection.first("SELECT count(*) FROM t") { $0.int(0) }
            #expect(try inserted.value() == 1)
        }
        #expect(trips == 1)
        #expect(count == 2)
    }

    @Test func aRefusedQueuedStatementAnswersItsErrorAndTheOnesAfterItDidNotRun() throws {
        let (connection, _) = try relayedConnection()
        try connection.transaction { _ = try connection.run("INSERT INTO t (name) VALUES (?)", "taken") }
        var answers: [Result<Int, any Error>] = []
        let refused = #expect(throws: PostgresError.self) {
            try connection.transaction {
                let queued = ["before", "taken", "after"].map { connection.runLater("INSERT INTO t (name) VALUES (?)", $0) }
                answers = queued.map { later in Result { try later.value() } }
                _ = try answers[1].get()
            }
        }
        #expect(refused?.isUniqueViolation == true)
        #expect(try answers[0].get() == 1)
        #expect(throws: PostgresError.self) { try answers[2].get() }
        // Queued and then undone, never sent: its answer says so.
        var undone: Later<Int>?
        #expect(throws: CancelledBody.self) {
            try connection.transaction {
                undone = connection.runLater("INSERT INTO t (name) VALUES (?)", "undone")
                throw CancelledBody()
            }
        }
        #expect(throws: PostgresError.self) { try undone?.value() }
        // Queued and never read: it goes with the commit.
        try connection.transaction { _ = connection.runLater("INSERT INTO t (name) VALUES (?)", "unread") }
        #expect(try names(on: connection) == ["taken", "unread"])
    }

    private struct CancelledBody: Error {}

    @Test func aConnectionLostBeforeAnExchangeFailsItAsPassingAndTheNextOneReconnects() throws {
        // Straight to the server: the relay passes on one connection only.
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT UNIQUE NOT NULL)")
        let pid = try #require(try connection.first("SELECT pg_backend_pid()") { $0.int(0) })
        let other = try PostgresConnection(url: try #require(TestDatabase.serverURL))
        _ = try other.first("SELECT pg_terminate_backend(?)", pid) { $0.int(0) }
        let lost = #expect(throws: PostgresError.self) {
            try connection.transaction {
                _ = try connection.firstCommitting("INSERT INTO t (name) VALUES (?) RETURNING id", "lost") { $0.int(0) }
            }
        }
        #expect(lost?.mayPass == true)
        try connection.transaction { _ = try connection.firstCommitting("INSERT INTO t (name) VALUES (?) RETURNING id", "again") { $0.int(0) } }
        #expect(try names(on: connection) == ["again"])
        #expect(try connection.first("SELECT current_setting('jit')") { $0.text(0) } == "off", "a new connection starts with the settings")
    }

    /// A statement the planner thinks large is not compiled: compiling took
    /// milliseconds where running took a tenth of one.
    @Test func statementsAreNotCompiled() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let connection = try PostgresConnection(url: url)
        // Planned before any statistics: a million rows each side, thought to cost more than the default threshold.
        try connection.execute("CREATE TABLE big (id BIGINT); CREATE TABLE other (id BIGINT)")
        let plan = try connection.query("EXPLAIN (ANALYZE, FORMAT TEXT) SELECT * FROM big CROSS JOIN other ORDER BY big.id") { $0.text(0) }
        #expect(try connection.first("SELECT current_setting('jit')") { $0.text(0) } == "off")
        #expect(!plan.contains { $0.contains("JIT") }, "compiled: \(plan)")
    }

    /// A transaction its server left open (frozen, cut off between the round
    /// trips of a commit) is ended by PostgreSQL, its locks with it; the
    /// server, back, finds its connection lost, and the next use reconnects.
    @Test func aTransactionLeftOpenIsEndedAndItsLocksReleased() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        var settings = PostgresSessionSettings()
        settings.idleInTransaction = .milliseconds(300)
        let stalled = try PostgresConnection(url: url, settings: settings)
        try stalled.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT UNIQUE NOT NULL); INSERT INTO t (name) VALUES ('row')")
        try stalled.execute("BEGIN")
        try stalled.run("UPDATE t SET name = 'held' WHERE id = 1")
        let waiting = try PostgresConnection(url: url, settings: settings.waitingForLocks(atMost: .seconds(30)))
        // Waits for the lock until PostgreSQL ends the stalled transaction.
        #expect(try waiting.run("UPDATE t SET name = 'taken' WHERE id = 1") == 1)
        let lost = #expect(throws: PostgresError.self) { try stalled.run("UPDATE t SET name = 'late' WHERE id = 1") }
        #expect(lost?.isConnectionLost == true)
        #expect(try stalled.first("SELECT name FROM t WHERE id = 1") { $0.text(0) } == "taken")
    }

    /// A lock held by another transaction past the lock wait fails the
    /// statement as a lock wait that ran out, which may pass.
    @Test func aLockHeldPastTheWaitFailsAsALockWaitTimeout() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let holder = try PostgresConnection(url: url)
        try holder.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT UNIQUE NOT NULL); INSERT INTO t (name) VALUES ('row')")
        try holder.execute("BEGIN")
        try holder.run("UPDATE t SET name = 'held' WHERE id = 1")
        let writer = try PostgresConnection(url: url, settings: PostgresSessionSettings().waitingForLocks(atMost: .milliseconds(100)))
        let timedOut = #expect(throws: PostgresError.self) { try writer.run("UPDATE t SET name = 'mine' WHERE id = 1") }
        #expect(timedOut?.isLockWaitTimeout == true)
        #expect(timedOut?.mayPass == true)
        try holder.execute("ROLLBACK")
    }

    /// Every connection notices a peer that vanished within seconds: TCP
    /// keepalives and a user timeout on the client's side, the same on the
    /// server's, and an idle transaction's timeout.
    @Test func aConnectionStartsWithItsTimeouts() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let connection = try PostgresConnection(url: url, settings: PostgresSessionSettings().waitingForLocks(atMost: .milliseconds(1500)))
        func setting(_ name: String) throws -> String? {
            try connection.first("SELECT setting FROM pg_settings WHERE name = ?", name) { $0.text(0) }
        }
        #expect(try setting("idle_in_transaction_session_timeout") == "5000")
        #expect(try setting("lock_timeout") == "1500")
        #expect(try setting("tcp_user_timeout") == "10000" || url.contains("host=/"), "set where the connection is TCP")
        let reader = try PostgresConnection(url: url)
        #expect(try reader.first("SELECT setting FROM pg_settings WHERE name = 'lock_timeout'") { $0.text(0) } == "0",
                "only the writer bounds its lock waits")
    }
}
