import Foundation
import Synchronization
@testable import TailorStore
import TailorTestSupport
import Testing

/// A disabled account keeps nothing that lets it in: no session starts for
/// it, not even one whose transaction was open when the disable came, its
/// push subscriptions go, and enabling it brings back the account alone.
@Suite struct DisabledAccountTests {
    private static func session(_ number: UInt8) -> NewSession {
        NewSession(tokenHash: [UInt8](repeating: number, count: 32), userAgent: "test")
    }

    @Test(arguments: Backend.allCases)
    func aDisabledAccountGetsNoSessionAndEnablingBringsNoneBack(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let alice = try store.insertUser(name: "alice", at: 1)
        _ = try writer.transaction { try store.insertSession(Self.session(1), user: alice.id, at: 2) }
        _ = try writer.transaction {
            try store.subscribe(user: alice.id, session: nil, endpoint: "https://push.example/a", p256dh: [1], auth: [2], limit: 10, at: 2)
        }
        let disabled = try writer.transaction { try store.setDisabled("alice", at: 3) }
        #expect(disabled?.endedSessions.count == 1)
        #expect(throws: StoreError.accountDisabled) { try writer.transaction { try store.insertSession(Self.session(2), user: alice.id, at: 4) } }
        #expect(throws: StoreError.accountDisabled) {
            try writer.transaction {
                try store.subscribe(user: alice.id, session: nil, endpoint: "https://push.example/b", p256dh: [1], auth: [2], limit: 10, at: 4)
            }
        }
        #expect(try writer.first("SELECT count(*) FROM push_subscriptions", binding: []) { $0.int(0) } == 0)
        // A session that a race left behind anyway (written here by hand) does not come back with the account.
        try writer.transaction {
            _ = try writer.run("INSERT INTO sessions (user_id, token_hash, created_at, last_seen_at, user_agent) VALUES (?, ?, 5, 5, 'x')",
                               alice.id, Self.session(3).tokenHash)
        }
        let enabled = try writer.transaction { try store.setDisabled("alice", at: nil) }
        #expect(enabled?.endedSessions.count == 1)
        #expect(try store.sessions(of: alice.id).isEmpty)
        _ = try writer.transaction { try store.insertSession(Self.session(4), user: alice.id, at: 6) }
        #expect(try store.sessions(of: alice.id).count == 1)
    }

    /// A sign-in whose transaction is open when the disable comes: the
    /// disable waits for it, then ends the session it started.
    @Test func aSessionStartedWhileADisableWaitsIsEndedByIt() throws {
        let location = try TestDatabase.fresh(.postgres)
        let (database, writer) = try Database.open(location)
        defer { database.close() }
        guard case .postgres(let url) = location else { return }
        let alice = try Store(writer).insertUser(name: "alice", at: 1)
        let other = ConnectionBox(try PostgresConnection(url: url))
        let otherBackend = try other.connection.first("SELECT pg_backend_pid()", binding: []) { $0.int(0) } ?? 0
        let watcher = try PostgresConnection(url: url)
        let ended = Mutex<Int?>(nil)
        let disableDone = DispatchSemaphore(value: 0)
        try writer.transaction {
            _ = try Store(writer).insertSession(Self.session(1), user: alice.id, at: 2)
            Thread {
                let disabled = try? other.connection.transaction { try Store(other.connection).setDisabled("alice", at: 3) }
                ended.withLock { $0 = disabled?.endedSessions.count }
                disableDone.signal()
            }.start()
            #expect(try eventually {
                try watcher.first("SELECT count(*) FROM pg_locks WHERE pid = ? AND NOT granted", binding: [otherBackend]) { $0.int(0) } ?? 0 > 0
            }, "the disable did not wait for the open sign-in")
        }
        #expect(disableDone.wait(timeout: .now() + 20) == .success)
        #expect(ended.withLock { $0 } == 1)
        #expect(try Store(writer).sessions(of: alice.id).isEmpty, "a session started in the race outlived the disable")
    }
}
