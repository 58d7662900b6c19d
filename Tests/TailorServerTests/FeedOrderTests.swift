import Foundation
import Synchronization
@testable import TailorDomain
import TailorFeed
import TailorStore
import TailorTestSupport
import Testing

/// Servers take their feed positions without waiting for each other's
/// commits: an entry may be committed after a later one, or not at all. A
/// server applies the feed in order all the same.
@Suite struct FeedOrderTests {
    /// A server and, beside it, another server's commit under way: a message
    /// and its feed entry written, at the position before the server's own
    /// next commit, not committed yet.
    private struct Setting {
        let app: TestApp
        let alice: APIClient
        let chatID: String
        let stream: SSEClient
        let other: PostgresConnection
        let watcher: PostgresConnection

        init() throws {
            let location = try TestDatabase.fresh(.postgres)
            guard case .postgres(let url) = location else { throw RawClient.Failure(description: "not a PostgreSQL database") }
            app = try TestApp(database: location)
            alice = try app.user("alice")
            let bob = try app.user("bob")
            chatID = try MultiInstanceTests.chat(between: alice, and: "bob")
            stream = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)")
            _ = try stream.next()
            other = try PostgresConnection(url: url)
            watcher = try PostgresConnection(url: url)
            // Named as every server's writer is: a commit of another server's.
            try Store.name(other, with: PostgresSessionSettings.writerNameSuffix)
            try other.execute("BEGIN")
            let id = try #require(Int(chatID))
            let chat = try #require(try other.first("SELECT user_a, user_b, created_at FROM chats WHERE id = ?", id) {
                Chat(id: id, userA: $0.int(0), userB: $0.int(1), createdAt: $0.int(2))
            })
            let message = try #require(try other.first("""
                INSERT INTO messages (chat_id, sender_id, text, sent_at) VALUES (?, ?, 'under way', 1) RETURNING id
                """, id, chat.userA) { Message(id: $0.int(0), chatID: id, senderID: chat.userA, text: "under way", clientID: nil, sentAt: 1, isRead: false) })
            try other.run("INSERT INTO changes (position, body) SELECT nextval('changes_position'), CAST(? AS BYTEA)",
                          ChangeEncoding.bytes(of: [.messageSent(message, in: chat)]))
        }

        /// Sends "after" through the server, on a thread of its own: its answer
        /// waits for the feed, which waits for the commit under way. Returns
        /// once its entry is committed.
        func sendAfter() throws -> DispatchSemaphore {
            let answered = DispatchSemaphore(value: 0)
            let before = try latest()
            Thread.detachNewThread { [alice, chatID] in
                _ = try? alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"after"}"#)
                answered.signal()
            }
            #expect(try eventually(timeout: 30) { try latest() != before }, "the message after was never committed")
            return answered
        }

        func latest() throws -> Int {
            try watcher.first("SELECT coalesce(max(position), 0) FROM changes", binding: []) { $0.int(0) } ?? 0
        }

        func texts(of event: SSEClient.Event) -> [String] {
            ((event.json["messages"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }
        }

        func textsShown() throws -> [String] {
            ((try alice.send("GET", "/api/chats/\(chatID)").json["messages"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }
        }
    }

    @Test func anEntryCommittedAfterALaterOneIsAppliedBeforeIt() throws {
        let setting = try Setting()
        let answered = try setting.sendAfter()
        try setting.other.execute("COMMIT")
        answered.wait()
        let shown = try setting.stream.next(where: { setting.texts(of: $0).last == "after" })
        #expect(setting.texts(of: shown) == ["under way", "after"])
        #expect(try setting.textsShown() == ["under way", "after"])
    }

    @Test func anEntryWhoseCommitWasUndoneIsPassedOver() throws {
        let setting = try Setting()
        try undoTheCommitUnderWay(beside: setting)
    }

    /// Another program's transaction that has an id, in this database or in
    /// another of the same PostgreSQL server (a batch job, a migration, an
    /// operator's session), draws no position: a position undone beside it is
    /// given up as soon as the writer's transaction that took it ends, not
    /// after the patience for what cannot be told apart (the stream's read
    /// timeout is shorter than that).
    @Test(arguments: [false, true]) func anUndonePositionIsGivenUpAtOnceBesideAnotherProgramsTransaction(inAnotherDatabase: Bool) throws {
        let setting = try Setting()
        let server = try #require(TestDatabase.serverURL)
        let holder = try PostgresConnection(url: inAnotherDatabase ? Self.url(server, database: "postgres") : server)
        // Held as long as the program likes, as PostgreSQL lets it by default.
        try holder.execute("SET idle_in_transaction_session_timeout = 0")
        try holder.execute("BEGIN")
        #expect(try holder.first("SELECT pg_current_xact_id()::text", binding: []) { $0.text(0) } != nil)
        try undoTheCommitUnderWay(beside: setting)
        try holder.execute("ROLLBACK")
    }

    /// The other server's commit under way is undone while "after" waits
    /// behind it: only "after" shows, on the stream and in a read.
    private func undoTheCommitUnderWay(beside setting: Setting) throws {
        let answered = try setting.sendAfter()
        try setting.other.execute("ROLLBACK")
        answered.wait()
        let shown = try setting.stream.next(where: { setting.texts(of: $0).last == "after" })
        #expect(setting.texts(of: shown) == ["after"])
        #expect(try setting.textsShown() == ["after"])
    }

    /// `url` with its database (the path) replaced.
    static func url(_ url: String, database: String) -> String {
        guard let slash = url.range(of: "/", options: .backwards, range: url.range(of: "://")!.upperBound..<url.endIndex) else { return url }
        let rest = url[slash.upperBound...].firstIndex(of: "?").map { String(url[$0...]) } ?? ""
        return url[..<slash.upperBound] + database + rest
    }
}
