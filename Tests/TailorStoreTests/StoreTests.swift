import Foundation
@testable import TailorStore
import Testing

/// What only SQLite has: its migrations, pragmas, query plans and write-ahead
/// log, on a real file in a temporary folder. The rules both engines share
/// are in `StoreRulesTests`.
@Suite struct StoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-store-\(UUID().uuidString)")
    var path: String { folder.appendingPathComponent("nested/tailor.sqlite").path }

    @Test func migratesAnEmptyDatabaseAndCreatesItsFolder() throws {
        let (database, writer) = try Database.openSQLite(path: path)
        defer { database.close() }
        #expect(try writer.pragma("user_version") == SQLiteSchema.currentVersion)
        #expect(try Store(writer).user(named: "bot") != nil)
        #expect(try writer.first("PRAGMA journal_mode") { $0.text(0) } == "wal")
        #expect(try writer.pragma("foreign_keys") == 1)
    }

    @Test func reopeningKeepsDataAndDoesNotMigrateAgain() throws {
        do {
            let (database, writer) = try Database.openSQLite(path: path)
            _ = try Store(writer).insertUser(name: "alice", at: 1)
            database.close()
        }
        let (database, writer) = try Database.openSQLite(path: path)
        defer { database.close() }
        #expect(try Store(writer).user(named: "ALICE")?.name == "alice")
        #expect(try writer.first("SELECT count(*) FROM users WHERE name = 'bot'") { $0.int(0) } == 1)
    }

    @Test func aDatabaseFromAPreviousVersionIsMigratedForward() throws {
        // Version 0 is the empty database every earlier release started from.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let connection = try SQLiteConnection(path: path.replacingOccurrences(of: "nested/", with: ""))
        try connection.execute("PRAGMA user_version = 0")
        try SQLiteSchema.migrate(connection)
        #expect(try connection.pragma("user_version") == SQLiteSchema.currentVersion)
    }

    @Test func aDatabaseNewerThanTheProgramIsRefused() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("newer.sqlite").path
        let connection = try SQLiteConnection(path: file)
        try connection.execute("PRAGMA user_version = \(SQLiteSchema.currentVersion + 1)")
        #expect(throws: SchemaError.self) { try Database.openSQLite(path: file) }
    }

    @Test func chatPagesAndUnreadCountsAreReadFromIndexesAloneOnSQLite() throws {
        let (database, writer) = try Database.openSQLite(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, chat) = try StoreRulesTests.chatOfTwo(in: store)
        for index in 0..<5 {
            _ = try store.insertMessage(chat: chat.id, sender: index % 2 == 0 ? alice.id : bob.id, text: "m\(index)", clientID: nil, at: index).value()
        }
        _ = try store.markRead(chat: chat.id, reader: alice.id, at: 9).value()
        let plan = try writer.query("EXPLAIN QUERY PLAN SELECT id, sender_id FROM messages WHERE chat_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                                    chat.id, Int.max, 4) { $0.text(3) }
        #expect(plan.contains { $0.contains("COVERING INDEX messages_page") }, "\(plan)")
        // An unread count walks the messages after the reader's cursor, in the same index.
        let counting = try writer.query("""
            EXPLAIN QUERY PLAN SELECT count(*) FROM chat_members r JOIN messages m ON m.chat_id = r.chat_id AND m.id > r.read_through
            WHERE r.chat_id = ?1 AND r.user_id = ?2 AND m.sender_id <> ?2
            """, chat.id, bob.id) { $0.text(3) }
        #expect(counting.contains { $0.contains("COVERING INDEX messages_page (chat_id=? AND id>?)") }, "\(counting)")
        #expect(try store.unreadCount(chat: chat.id, reader: alice.id) == 0)
        #expect(try store.unreadCount(chat: chat.id, reader: bob.id) == 3)
    }

    @Test func messagesOfTheFirstSchemaAreOutlinedAfterTheMigration() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("first.sqlite").path
        do {
            let connection = try SQLiteConnection(path: file)
            try connection.execute(SQLiteSchema.migrations[0])
            try connection.execute("PRAGMA user_version = 1")
            try connection.execute("""
                INSERT INTO users (name, name_key, created_at) VALUES ('alice', 'alice', 1), ('bob', 'bob', 1);
                INSERT INTO chats (user_a, user_b, created_at, last_activity_at) VALUES (2, 3, 1, 1);
                INSERT INTO messages (chat_id, sender_id, text, sent_at, read_at) VALUES (1, 2, 'old', 1, 5), (1, 3, 'new', 2, NULL);
                """)
        }
        let (database, writer) = try Database.openSQLite(path: file)
        defer { database.close() }
        let page = try Store(writer).messagePageOutline(chat: 1, before: nil, limit: 50)
        #expect(page.states == [MessageState(id: 1, senderID: 2, isRead: true), MessageState(id: 2, senderID: 3, isRead: false)])
    }

    /// Positions handed out from memory never go back: not after a commit
    /// that failed, not after a restart, which goes on past the reserved block.
    @Test func feedPositionsNeverGoBack() throws {
        var handedOut: [Int] = []
        do {
            let (database, writer) = try Database.openSQLite(path: path)
            defer { database.close() }
            let feed = try FeedAppender(store: Store(writer), window: 10)
            for _ in 0..<3 {
                handedOut.append(try writer.transaction { try feed.append([], in: Store(writer)) })
            }
            do {
                try writer.transaction { () throws -> Void in
                    handedOut.append(try feed.append([], in: Store(writer)))
                    throw StoreError.notFound
                }
            } catch {
                feed.rolledBack()
            }
            handedOut.append(try writer.transaction { try feed.append([], in: Store(writer)) })
            #expect(handedOut == handedOut.sorted() && Set(handedOut).count == handedOut.count)
            #expect(try Store(writer).lastPosition() >= handedOut.last!, "the file reserves what was handed out")
        }
        let (database, writer) = try Database.openSQLite(path: path)
        defer { database.close() }
        let feed = try FeedAppender(store: Store(writer), window: 10)
        #expect(try writer.transaction { try feed.append([], in: Store(writer)) } > handedOut.last!)
    }

    /// A server stopped twice releases its file once: closing the lock's
    /// descriptor again would close whatever reuses its number.
    @Test func releasingTheFileTwiceClosesNothingElse() throws {
        let (database, _) = try Database.openSQLite(path: path)
        database.close()
        let other = open(path, O_RDONLY)
        defer { close(other) }
        database.close()
        #expect(fcntl(other, F_GETFD) != -1, "another file's descriptor was closed")
    }

    @Test func aSecondServerOnTheSameFileIsRefusedUntilTheFirstStops() throws {
        let (database, _) = try Database.openSQLite(path: path)
        #expect(throws: DatabaseInUse.self) { try Database.openSQLite(path: path) }
        database.close()
        let (again, _) = try Database.openSQLite(path: path)
        again.close()
    }
}

extension StoreTests {
    /// Each message is a commit of about four pages (frames in the log), so a
    /// few thousand of them cross the threshold at which a commit asks for a
    /// checkpoint, and stay below the one at which the writer copies itself.
    @Test func checkpointsRunBesideTheWriterAndTheLogStartsOverAfterThem() throws {
        let (database, writer) = try Database.openSQLite(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, _, chat) = try StoreRulesTests.chatOfTwo(in: store)
        func send(_ count: Int) throws {
            for index in 0..<count {
                try writer.transaction { _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "m\(index)", clientID: nil, at: index).value() }
            }
        }
        try send(1000)
        // The last commit must ask for a checkpoint, so that one runs after it:
        // a log started over near the end may hold too few frames to ask.
        var sent = 1000
        while database.sqliteFile!.checkpointer.logFrames < Checkpointer.askFrames {
            try send(1)
            sent += 1
        }
        database.sqliteFile!.checkpointer.finish()
        #expect(database.sqliteFile!.checkpointer.done.onOwnThread > 0)
        #expect(database.sqliteFile!.checkpointer.done.byWriter == 0)
        // Everything was copied while the writer rested: its next commit
        // starts the log over.
        try send(1)
        #expect(try logFrames(writer) < 10)
        #expect(try writer.first("SELECT count(*) FROM messages") { $0.int(0) } == sent + 1)
    }

    /// Each time the log starts over the writer syncs it, which flushes the
    /// disk's cache and waits for everything the disk has queued; a log that
    /// started over every 4 MB did that seven times a second at 2,000
    /// messages a second. It starts over only after tens of megabytes.
    @Test func theLogStartsOverOnlyAfterTensOfMegabytes() throws {
        let (database, writer) = try Database.openSQLite(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, _, chat) = try StoreRulesTests.chatOfTwo(in: store)
        let checkpointer = database.sqliteFile!.checkpointer
        var most = 0
        var startedOver = false
        for index in 0..<50_000 {
            try writer.transaction { _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "m\(index)", clientID: nil, at: index).value() }
            let frames = checkpointer.logFrames
            startedOver = frames < most
            if startedOver { break }
            most = frames
            // A checkpoint that was asked for ends before the next commit, which then starts the log over.
            checkpointer.finish()
        }
        #expect(startedOver, "the log never started over")
        #expect(most * Checkpointer.frameBytes >= 30_000_000, "the log started over after \(most) frames")
    }

    /// Frames in the log, as a checkpoint tells.
    private func logFrames(_ connection: SQLiteConnection) throws -> Int {
        try connection.first("PRAGMA wal_checkpoint(PASSIVE)") { $0.int(1) } ?? 0
    }

    /// A reader that holds an old snapshot keeps the log from starting over;
    /// the writer then copies what it can itself, and once the reader is gone
    /// the log starts over and its file is cut back.
    @Test func aLogHeldByAReaderIsCopiedByTheWriterAndCutBackAfterwards() throws {
        let (database, writer) = try Database.openSQLite(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, _, chat) = try StoreRulesTests.chatOfTwo(in: store)
        let reader = try SQLiteConnection(path: path, readOnly: true)
        try reader.readTransaction {
            #expect(try reader.first("SELECT count(*) FROM messages") { $0.int(0) } == 0)
            var index = 0
            while database.sqliteFile!.checkpointer.done.byWriter == 0 && index < 50_000 {
                try writer.transaction { _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "m\(index)", clientID: nil, at: index).value() }
                index += 1
            }
            #expect(try reader.first("SELECT count(*) FROM messages") { $0.int(0) } == 0)
        }
        #expect(database.sqliteFile!.checkpointer.done.byWriter > 0)
        #expect(logBytes() > SQLiteFile.logBytesKept)
        for index in 0..<50 {
            try writer.transaction { _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "n\(index)", clientID: nil, at: index).value() }
            database.sqliteFile!.checkpointer.finish()
        }
        #expect(logBytes() <= SQLiteFile.logBytesKept)
    }

    private func logBytes() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }
}
