import Foundation
import Testing
@testable import TailorStore

/// The store on a real SQLite file in a temporary folder.
@Suite struct StoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-store-\(UUID().uuidString)")
    var path: String { folder.appendingPathComponent("nested/tailor.sqlite").path }

    @Test func migratesAnEmptyDatabaseAndCreatesItsFolder() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        #expect(try writer.pragma("user_version") == Schema.currentVersion)
        #expect(try Store(writer).user(named: "bot") != nil)
        #expect(try writer.first("PRAGMA journal_mode") { $0.text(0) } == "wal")
        #expect(try writer.pragma("foreign_keys") == 1)
    }

    @Test func reopeningKeepsDataAndDoesNotMigrateAgain() throws {
        do {
            let (database, writer) = try Database.open(path: path)
            _ = try Store(writer).insertUser(name: "alice", at: 1)
            database.close()
        }
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        #expect(try Store(writer).user(named: "ALICE")?.name == "alice")
        #expect(try writer.first("SELECT count(*) FROM users WHERE name = 'bot'") { $0.int(0) } == 1)
    }

    @Test func aDatabaseFromAPreviousVersionIsMigratedForward() throws {
        // Version 0 is the empty database every earlier release started from.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let connection = try SQLiteConnection(path: path.replacingOccurrences(of: "nested/", with: ""))
        try connection.execute("PRAGMA user_version = 0")
        try Schema.migrate(connection)
        #expect(try connection.pragma("user_version") == Schema.currentVersion)
    }

    @Test func aDatabaseNewerThanTheProgramIsRefused() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("newer.sqlite").path
        let connection = try SQLiteConnection(path: file)
        try connection.execute("PRAGMA user_version = \(Schema.currentVersion + 1)")
        #expect(throws: SchemaError.self) { try Database.open(path: file) }
    }

    @Test func constraintsSayNo() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        let store = Store(writer)
        let alice = try store.insertUser(name: "Alice", at: 1)
        #expect(throws: StoreError.nameTaken) { try store.insertUser(name: "alice", at: 2) }
        // A message in a chat that does not exist breaks a foreign key.
        do {
            _ = try store.insertMessage(chat: 999, sender: alice.id, text: "x", clientID: nil, at: 3)
            Issue.record("a message without its chat was stored")
        } catch let error as SQLiteError {
            #expect(error.isConstraintViolation)
            #expect(error.message.contains("FOREIGN KEY"))
        }
        // The same client id twice in one chat from one sender is refused.
        let bob = try store.insertUser(name: "bob", at: 1)
        let chat = try store.findOrCreateChat(between: alice.id, and: bob.id, at: 4).chat
        _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "one", clientID: "c1", at: 5)
        #expect(throws: SQLiteError.self) { try store.insertMessage(chat: chat.id, sender: alice.id, text: "two", clientID: "c1", at: 6) }
        #expect(try store.findOrCreateChat(between: bob.id, and: alice.id, at: 7).created == false)
    }

    @Test func aSavepointUndoesOnlyItsOwnChanges() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        let store = Store(writer)
        try writer.transaction {
            _ = try writer.savepoint { try store.insertUser(name: "kept", at: 1) }
            _ = try? writer.savepoint { () throws -> User in
                _ = try store.insertUser(name: "undone", at: 1)
                throw StoreError.notFound
            }
        }
        #expect(try store.user(named: "kept") != nil)
        #expect(try store.user(named: "undone") == nil)
    }

    @Test func ordersFilterSortAndSearch() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        let store = Store(writer)
        let user = try store.insertUser(name: "shopper", at: 1).id
        let other = try store.insertUser(name: "other", at: 1).id
        let cheap = try store.insertOrder(user: user, name: "Groceries", currency: "USD", items: [OrderItem(title: "Green Tea", quantity: 2, priceCents: 100)], at: 1)
        let dear = try store.insertOrder(user: user, name: "Garden", currency: "USD", items: [OrderItem(title: "Spade", quantity: 1, priceCents: 5000)], at: 2)
        let tie = try store.insertOrder(user: user, name: "Books", currency: "USD", items: [OrderItem(title: "Novel", quantity: 1, priceCents: 5000)], at: 3)
        _ = try store.insertOrder(user: other, name: "Groceries", currency: "USD", items: [OrderItem(title: "Tea", quantity: 1, priceCents: 1)], at: 4)
        #expect(try store.orders(of: user, status: nil, matching: "", sort: .newest).map(\.id) == [tie.id, dear.id, cheap.id])
        #expect(try store.orders(of: user, status: nil, matching: "", sort: .oldest).map(\.id) == [cheap.id, dear.id, tie.id])
        #expect(try store.orders(of: user, status: nil, matching: "", sort: .total).map(\.id) == [tie.id, dear.id, cheap.id])
        #expect(try store.orders(of: user, status: nil, matching: "TEA", sort: .newest).map(\.id) == [cheap.id])
        #expect(try store.orders(of: user, status: nil, matching: "gard", sort: .newest).map(\.id) == [dear.id])
        #expect(try store.orders(of: user, status: nil, matching: "100%", sort: .newest).isEmpty)
        _ = try store.updateOrderStatus(id: dear.id, user: user, to: .paid)
        #expect(try store.orders(of: user, status: .paid, matching: "", sort: .newest).map(\.id) == [dear.id])
        #expect(throws: StoreError.invalidTransition(from: .paid, to: .delivered)) { try store.updateOrderStatus(id: dear.id, user: user, to: .delivered) }
        #expect(throws: StoreError.notFound) { try store.updateOrderStatus(id: dear.id, user: other, to: .shipped) }
        #expect(try store.order(id: dear.id, user: other) == nil)
        #expect(try store.order(id: cheap.id, user: user)?.items == [OrderItem(title: "Green Tea", quantity: 2, priceCents: 100)])
        try store.deleteOrder(id: cheap.id, user: user)
        #expect(try store.order(id: cheap.id, user: user) == nil)
        #expect(try writer.first("SELECT count(*) FROM order_items WHERE order_id = ?", cheap.id) { $0.int(0) } == 0)
    }

    @Test func chatPagesAndUnreadCountsAreReadFromIndexesAlone() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, chat) = try Self.chatOfTwo(in: store)
        let ids = try (0..<5).map { try store.insertMessage(chat: chat.id, sender: $0 % 2 == 0 ? alice.id : bob.id, text: "m\($0)", clientID: nil, at: $0).id }
        _ = try store.markRead(chat: chat.id, reader: alice.id, at: 9)

        let latest = try store.messagePageOutline(chat: chat.id, before: nil, limit: 3)
        #expect(latest.states.map(\.id) == Array(ids[2...]))
        #expect(latest.states.map(\.isRead) == [false, true, false])
        #expect(latest.hasEarlier)
        let earlier = try store.messagePageOutline(chat: chat.id, before: ids[2], limit: 3)
        #expect(earlier.states.map(\.id) == Array(ids[..<2]))
        #expect(!earlier.hasEarlier)
        #expect(try store.message(id: ids[1])?.text == "m1")

        let plan = try writer.query("EXPLAIN QUERY PLAN SELECT id, sender_id, read_at IS NOT NULL FROM messages WHERE chat_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                                    chat.id, Int.max, 4) { $0.text(3) }
        #expect(plan.contains { $0.contains("COVERING INDEX messages_page") }, "\(plan)")
        #expect(try store.unreadCount(chat: chat.id, reader: alice.id) == 0)
        #expect(try store.unreadCount(chat: chat.id, reader: bob.id) == 3)
        #expect(try store.unreadTotal(of: bob.id) == 3)
        let counting = try writer.query("""
            EXPLAIN QUERY PLAN SELECT count(*) FROM messages INDEXED BY messages_unread
            WHERE chat_id = ? AND sender_id <> ? AND read_at IS NULL
            """, chat.id, bob.id) { $0.text(3) }
        #expect(counting.contains { $0.contains("COVERING INDEX messages_unread") }, "\(counting)")
    }

    @Test func messagesOfTheFirstSchemaAreOutlinedAfterTheMigration() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("first.sqlite").path
        do {
            let connection = try SQLiteConnection(path: file)
            try connection.execute(Schema.migrations[0])
            try connection.execute("PRAGMA user_version = 1")
            try connection.execute("""
                INSERT INTO users (name, name_key, created_at) VALUES ('alice', 'alice', 1), ('bob', 'bob', 1);
                INSERT INTO chats (user_a, user_b, created_at, last_activity_at) VALUES (2, 3, 1, 1);
                INSERT INTO messages (chat_id, sender_id, text, sent_at, read_at) VALUES (1, 2, 'old', 1, 5), (1, 3, 'new', 2, NULL);
                """)
        }
        let (database, writer) = try Database.open(path: file)
        defer { database.close() }
        let page = try Store(writer).messagePageOutline(chat: 1, before: nil, limit: 50)
        #expect(page.states == [MessageState(id: 1, senderID: 2, isRead: true), MessageState(id: 2, senderID: 3, isRead: false)])
    }

    @Test func readersReadWhileTheWriterWrites() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, chat) = try Self.chatOfTwo(in: store)
        let box = WriterBox(writer)
        let writes = Thread {
            for index in 0..<500 {
                try! box.connection.transaction {
                    _ = try Store(box.connection).insertMessage(chat: chat.id, sender: alice.id, text: "m\(index)", clientID: nil, at: index)
                }
            }
        }
        writes.start()
        var last = 0
        var reads = 0
        while last < 500 {
            let count = try database.read { try $0.unreadCount(chat: chat.id, reader: bob.id) }
            #expect(count >= last, "a reader went back in time")
            last = count
            reads += 1
        }
        #expect(reads > 1)
    }
}

extension StoreTests {
    /// Alice, Bob and their chat.
    /// Each message is a commit of about four pages (frames in the log), so a
    /// thousand of them cross the threshold at which a commit asks for a
    /// checkpoint, and stay below the one at which the writer copies itself.
    @Test func checkpointsRunBesideTheWriterAndTheLogStartsOverAfterThem() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, _, chat) = try Self.chatOfTwo(in: store)
        func send(_ count: Int) throws {
            for index in 0..<count {
                try writer.transaction { _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "m\(index)", clientID: nil, at: index) }
            }
        }
        try send(1000)
        database.checkpointer.finish()
        #expect(database.checkpointer.done.onQueue > 0)
        #expect(database.checkpointer.done.byWriter == 0)
        // Everything was copied while the writer rested: its next commit
        // starts the log over.
        try send(1)
        #expect(try logFrames(writer) < 10)
        #expect(try writer.first("SELECT count(*) FROM messages") { $0.int(0) } == 1001)
    }

    /// Frames in the log, as a checkpoint tells.
    private func logFrames(_ connection: SQLiteConnection) throws -> Int {
        try connection.first("PRAGMA wal_checkpoint(PASSIVE)") { $0.int(1) } ?? 0
    }

    /// A reader that holds an old snapshot keeps the log from starting over;
    /// the writer then copies what it can itself, and once the reader is gone
    /// the log starts over and its file is cut back.
    @Test func aLogHeldByAReaderIsCopiedByTheWriterAndCutBackAfterwards() throws {
        let (database, writer) = try Database.open(path: path)
        defer { database.close() }
        let store = Store(writer)
        let (alice, _, chat) = try Self.chatOfTwo(in: store)
        let reader = try SQLiteConnection(path: path, readOnly: true)
        try reader.readTransaction {
            #expect(try reader.first("SELECT count(*) FROM messages") { $0.int(0) } == 0)
            for index in 0..<2500 {
                try writer.transaction { _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "m\(index)", clientID: nil, at: index) }
            }
            #expect(try reader.first("SELECT count(*) FROM messages") { $0.int(0) } == 0)
        }
        #expect(database.checkpointer.done.byWriter > 0)
        #expect(logBytes() > Database.logBytesKept)
        for index in 0..<50 {
            try writer.transaction { _ = try store.insertMessage(chat: chat.id, sender: alice.id, text: "n\(index)", clientID: nil, at: index) }
            database.checkpointer.finish()
        }
        #expect(logBytes() <= Database.logBytesKept)
    }

    /// A page and the frame header the log adds to it.
    static let frameBytes = 4096 + 24

    private func logBytes() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }

    static func chatOfTwo(in store: Store) throws -> (alice: User, bob: User, chat: Chat) {
        let alice = try store.insertUser(name: "alice", at: 1)
        let bob = try store.insertUser(name: "bob", at: 1)
        return (alice, bob, try store.findOrCreateChat(between: alice.id, and: bob.id, at: 1).chat)
    }
}

/// Hands the writer connection to the writing thread in the test.
final class WriterBox: @unchecked Sendable {
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
}
