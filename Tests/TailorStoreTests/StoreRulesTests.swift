import Foundation
import Synchronization
@testable import TailorStore
import TailorTestSupport
import Testing

/// The model's rules, the same on SQLite and on PostgreSQL: each test runs on
/// a fresh database of both engines.
@Suite struct StoreRulesTests {
    /// A fresh database of `backend`, its writer, and a way to close it.
    private func open(_ backend: Backend) throws -> (Database, writer: any DatabaseConnection) {
        try Database.open(TestDatabase.fresh(backend))
    }

    @Test(arguments: Backend.allCases)
    func migratesAnEmptyDatabaseWithTheBotOnce(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        do {
            let (database, writer) = try Database.open(location)
            #expect(try Store(writer).user(named: "bot") != nil)
            _ = try Store(writer).insertUser(name: "alice", at: 1)
            database.close()
        }
        let (database, writer) = try Database.open(location)
        defer { database.close() }
        #expect(try Store(writer).user(named: "ALICE")?.name == "alice")
        #expect(try writer.first("SELECT count(*) FROM users WHERE name = 'bot'", binding: []) { $0.int(0) } == 1)
    }

    /// Servers share a PostgreSQL database; a SQLite file is one server's.
    @Test(arguments: Backend.allCases)
    func aSecondServerOnOneDatabaseIsRefusedOnSQLiteOnly(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        let (database, _) = try Database.open(location)
        defer { database.close() }
        switch backend {
        case .sqlite:
            #expect(throws: DatabaseInUse.self) { try Database.open(location) }
        case .postgres:
            let (second, _) = try Database.open(location)
            second.close()
        }
    }

    @Test(arguments: Backend.allCases)
    func constraintsSayNo(_ backend: Backend) throws {
        let (database, writer) = try open(backend)
        defer { database.close() }
        let store = Store(writer)
        let alice = try store.insertUser(name: "Alice", at: 1)
        #expect(throws: StoreError.nameTaken) { try store.insertUser(name: "alice", at: 2) }
        // A message in a chat that does not exist breaks a foreign key.
        do {
            _ = try store.insertMessage(chat: 999, sender: alice.id, text: "x", clientID: nil, at: 3).value()
            Issue.record("a message without its chat was stored")
        } catch let error as any DatabaseFailure {
            #expect(error.isConstraintViolation)
            #expect(!error.isUniqueViolation)
        }
        let bob = try store.insertUser(name: "bob", at: 1)
        let chat = try store.findOrCreateChat(between: alice.id, and: bob.id, at: 4).chat
        #expect(try store.findOrCreateChat(between: bob.id, and: alice.id, at: 7).created == false)
        // The same client id twice in one chat from one sender stores one
        // message; the second gets the first back.
        let first = try store.insertMessage(chat: chat.id, sender: alice.id, text: "one", clientID: "c1", at: 5).value()
        let again = try store.insertMessage(chat: chat.id, sender: alice.id, text: "two", clientID: "c1", at: 6).value()
        #expect(!first.duplicate && again.duplicate)
        #expect(again.message == first.message)
        #expect(try store.insertMessage(chat: chat.id, sender: bob.id, text: "three", clientID: "c1", at: 6).value().duplicate == false)
    }

    @Test(arguments: Backend.allCases)
    func aSavepointUndoesOnlyItsOwnChanges(_ backend: Backend) throws {
        let (database, writer) = try open(backend)
        defer { database.close() }
        let store = Store(writer)
        try writer.transaction {
            _ = try writer.savepoint { try store.insertUser(name: "kept", at: 1) }
            _ = try? writer.savepoint { () throws -> User in
                _ = try store.insertUser(name: "undone", at: 1)
                throw StoreError.notFound
            }
            // A statement the database refused undoes its savepoint too, and
            // the transaction goes on (PostgreSQL would refuse everything after
            // an error outside a savepoint).
            _ = try? writer.savepoint { try store.insertUser(name: "KEPT", at: 1) }
            _ = try writer.savepoint { try store.insertUser(name: "after", at: 1) }
        }
        #expect(try store.user(named: "kept") != nil)
        #expect(try store.user(named: "undone") == nil)
        #expect(try store.user(named: "after") != nil)
    }

    @Test(arguments: Backend.allCases)
    func ordersFilterSortAndSearch(_ backend: Backend) throws {
        let (database, writer) = try open(backend)
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
        #expect(try store.orders(of: user, status: nil, matching: "", sort: .newest, offset: 1, limit: 1).map(\.id) == [dear.id])
        #expect(try store.orders(of: user, status: nil, matching: "TEA", sort: .newest).map(\.id) == [cheap.id])
        #expect(try store.orders(of: user, status: nil, matching: "gard", sort: .newest).map(\.id) == [dear.id])
        #expect(try store.orders(of: user, status: nil, matching: "100%", sort: .newest).isEmpty)
        _ = try store.updateOrderStatus(id: dear.id, user: user, to: .paid)
        #expect(try store.orders(of: user, status: .paid, matching: "", sort: .newest).map(\.id) == [dear.id])
        #expect(throws: StoreError.invalidTransition(from: .paid, to: .delivered)) { try store.updateOrderStatus(id: dear.id, user: user, to: .delivered) }
        #expect(throws: StoreError.notFound) { try store.updateOrderStatus(id: dear.id, user: other, to: .shipped) }
        #expect(try store.order(id: dear.id, user: other) == nil)
        #expect(try store.order(id: cheap.id, user: user)?.items == [OrderItem(title: "Green Tea", quantity: 2, priceCents: 100)])
        #expect(try store.orderCount(of: user) == 3)
        try store.deleteOrder(id: cheap.id, user: user)
        #expect(try store.order(id: cheap.id, user: user) == nil)
        #expect(try writer.first("SELECT count(*) FROM order_items WHERE order_id = ?", cheap.id) { $0.int(0) } == 0)
        // A deleted order's id is never given again.
        let next = try store.insertOrder(user: user, name: "Later", currency: "EUR", items: [], at: 5)
        #expect(next.id > tie.id + 1)
    }

    @Test(arguments: Backend.allCases)
    func chatPagesSummariesAndUnreadCounts(_ backend: Backend) throws {
        let (database, writer) = try open(backend)
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, chat) = try Self.chatOfTwo(in: store)
        let ids = try (0..<5).map {
            try store.insertMessage(chat: chat.id, sender: $0 % 2 == 0 ? alice.id : bob.id, text: "m\($0)", clientID: nil, at: $0).value().message.id
        }
        #expect(try store.markRead(chat: chat.id, reader: alice.id, at: 9).value() == 2)

        let latest = try store.messagePageOutline(chat: chat.id, before: nil, limit: 3)
        #expect(latest.states.map(\.id) == Array(ids[2...]))
        #expect(latest.states.map(\.isRead) == [false, true, false])
        #expect(latest.hasEarlier)
        let earlier = try store.messagePageOutline(chat: chat.id, before: ids[2], limit: 3)
        #expect(earlier.states.map(\.id) == Array(ids[..<2]))
        #expect(!earlier.hasEarlier)
        #expect(try store.message(id: ids[1])?.text == "m1")
        #expect(try store.unreadCount(chat: chat.id, reader: alice.id) == 0)
        #expect(try store.unreadCount(chat: chat.id, reader: bob.id) == 3)
        #expect(try store.unreadTotal(of: bob.id) == 3)
        let summaries = try store.chatSummaries(of: bob.id)
        #expect(summaries.map(\.chatID) == [chat.id])
        #expect(summaries.first?.lastMessage?.text == "m4")
        #expect(summaries.first?.unreadCount == 3)
        #expect(summaries.first?.contact.name == "alice")
        #expect(try store.chatIDs(of: alice.id) == [chat.id])
    }

    @Test(arguments: Backend.allCases)
    func tokensAndSessionsFindTheirUser(_ backend: Backend) throws {
        let (database, writer) = try open(backend)
        defer { database.close() }
        let store = Store(writer)
        let alice = try store.insertUser(name: "alice", at: 1)
        let hash: [UInt8] = [0, 1, 2, 0xFE, 0xFF, 10, 13, 92]
        try store.insertToken(hash: hash, user: alice.id, at: 1)
        #expect(try store.user(tokenHash: hash) == alice)
        let session = try store.insertSession(NewSession(tokenHash: [9, 0, 9], userAgent: "Browser ü"), user: alice.id, at: 2)
        #expect(try store.session(tokenHash: [9, 0, 9])?.0 == session)
        #expect(try store.sessions(of: alice.id).map(\.tokenHash) == [[9, 0, 9]])
        #expect(try store.deleteSession(id: session.id, user: alice.id) == session)
        #expect(try store.session(tokenHash: [9, 0, 9]) == nil)
    }

    /// Two writers that open the same pair at once (two servers on one
    /// PostgreSQL database) make one chat between them.
    @Test func twoWritersOpeningOnePairAtOnceMakeOneChat() throws {
        let location = try TestDatabase.fresh(.postgres)
        let (database, writer) = try Database.open(location)
        defer { database.close() }
        guard case .postgres(let url) = location else { return }
        let other = try PostgresConnection(url: url)
        let store = Store(writer)
        let (alice, bob) = (try store.insertUser(name: "alice", at: 1), try store.insertUser(name: "bob", at: 1))
        // The first transaction holds its insert uncommitted while the second
        // tries the same pair: the second waits, then finds the first's chat.
        let box = ConnectionBox(other)
        let secondBackend = try Self.backend(of: other)
        let watcher = try PostgresConnection(url: url)
        let secondDone = DispatchSemaphore(value: 0)
        let second = Thread {
            _ = try? box.connection.transaction { try Store(box.connection).findOrCreateChat(between: bob.id, and: alice.id, at: 2) }
            secondDone.signal()
        }
        let created = try writer.transaction { () throws -> (chat: Chat, created: Bool) in
            let result = try store.findOrCreateChat(between: alice.id, and: bob.id, at: 1)
            second.start()
            // The second transaction tries while this one holds its lock.
            #expect(try Self.waitsForALock(secondBackend, seenBy: watcher))
            return result
        }
        #expect(created.created)
        secondDone.wait()
        let found = try box.connection.transaction { try Store(box.connection).findOrCreateChat(between: bob.id, and: alice.id, at: 3) }
        #expect(found.chat.id == created.chat.id && !found.created)
        #expect(try writer.first("SELECT count(*) FROM chats", binding: []) { $0.int(0) } == 1)
    }

    /// Two servers' transactions that lock the same rows in opposite orders:
    /// PostgreSQL undoes one, and says so in a way the writer retries.
    @Test func aDeadlockBetweenTwoWritersIsToldApart() throws {
        let location = try TestDatabase.fresh(.postgres)
        // PostgreSQL looks for the deadlock after a second: the writer's lock wait must not end first.
        let (database, writer) = try Database.open(location, lockWait: .seconds(60))
        defer { database.close() }
        guard case .postgres(let url) = location else { return }
        let store = Store(writer)
        let first = try store.insertOrder(user: try store.insertUser(name: "a", at: 1).id, name: "one", currency: "EUR", items: [], at: 1)
        let second = try store.insertOrder(user: first.userID, name: "two", currency: "EUR", items: [], at: 1)
        let box = ConnectionBox(try PostgresConnection(url: url))
        let writerBackend = try Self.backend(of: writer)
        let watcher = ConnectionBox(try PostgresConnection(url: url))
        let otherLocked = DispatchSemaphore(value: 0)
        let otherDone = DispatchSemaphore(value: 0)
        let failures = Mutex<[any DatabaseFailure]>([])
        let other = Thread {
            do {
                try box.connection.transaction {
                    try box.connection.run("UPDATE orders SET name = 'x' WHERE id = ?", second.id)
                    otherLocked.signal()
                    // Once the first transaction waits for this one's lock.
                    _ = try Self.waitsForALock(writerBackend, seenBy: watcher.connection)
                    try box.connection.run("UPDATE orders SET name = 'x' WHERE id = ?", first.id)
                }
            } catch let error as any DatabaseFailure {
                failures.withLock { $0.append(error) }
            } catch {}
            otherDone.signal()
        }
        other.start()
        do {
            try writer.transaction {
                try writer.run("UPDATE orders SET name = 'y' WHERE id = ?", first.id)
                otherLocked.wait()
                try writer.run("UPDATE orders SET name = 'y' WHERE id = ?", second.id)
            }
        } catch let error as any DatabaseFailure {
            failures.withLock { $0.append(error) }
        }
        otherDone.wait()
        let told = failures.withLock { $0 }
        #expect(told.count == 1, "one of the two was undone")
        #expect(told.allSatisfy { $0.isConflictWithAnotherTransaction }, "\(told)")
    }

    /// While the writer holds a transaction open, a reader is answered at
    /// once, with what was committed before it; after the commit it sees it.
    @Test(arguments: Backend.allCases)
    func readersReadWhileTheWriterWrites(_ backend: Backend) throws {
        let (database, writer) = try open(backend)
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, chat) = try Self.chatOfTwo(in: store)
        let box = ConnectionBox(writer)
        let inside = DispatchSemaphore(value: 0)
        let read = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let rounds = 3
        Thread {
            do {
                for index in 0..<rounds {
                    try box.connection.transaction {
                        _ = try Store(box.connection).insertMessage(chat: chat.id, sender: alice.id, text: "m\(index)", clientID: nil, at: index).value()
                        inside.signal()
                        read.wait()
                    }
                    committed.signal()
                }
            } catch {
                failure.withLock { $0 = error }
                inside.signal()
                committed.signal()
            }
        }.start()
        for round in 0..<rounds {
            #expect(inside.wait(timeout: .now() + 10) == .success)
            let during = try database.read { try $0.unreadCount(chat: chat.id, reader: bob.id) }
            read.signal()
            #expect(during == round, "a reader during the write sees what was committed before it")
            #expect(committed.wait(timeout: .now() + 10) == .success)
            let after = try database.read { try $0.unreadCount(chat: chat.id, reader: bob.id) }
            #expect(after == round + 1, "a reader after the commit sees it")
        }
        #expect(failure.withLock { $0 } == nil)
    }

    /// A status written by a newer program is an error, not read as another status.
    @Test(arguments: Backend.allCases)
    func anOrderStatusThisProgramDoesNotKnowIsAnError(_ backend: Backend) throws {
        let (database, writer) = try open(backend)
        defer { database.close() }
        let store = Store(writer)
        let user = try store.insertUser(name: "alice", at: 1).id
        let order = try store.insertOrder(user: user, name: "Groceries", currency: "USD", items: [], at: 1)
        _ = try writer.run("UPDATE orders SET status = 'returned' WHERE id = ?", order.id)
        #expect(throws: StoreError.unknownStatus("returned")) { try store.order(id: order.id, user: user) }
        #expect(throws: StoreError.unknownStatus("returned")) {
            try store.orders(of: user, status: nil, matching: "", sort: .newest)
        }
    }

    static func chatOfTwo(in store: Store) throws -> (alice: User, bob: User, chat: Chat) {
        let alice = try store.insertUser(name: "alice", at: 1)
        let bob = try store.insertUser(name: "bob", at: 1)
        return (alice, bob, try store.findOrCreateChat(between: alice.id, and: bob.id, at: 1).chat)
    }

    /// The process id of the backend serving `connection`.
    private static func backend(of connection: any DatabaseConnection) throws -> Int {
        try connection.first("SELECT pg_backend_pid()", binding: []) { $0.int(0) } ?? 0
    }

    /// Whether the backend `pid` comes to wait for a lock, as `watcher` sees it.
    private static func waitsForALock(_ pid: Int, seenBy watcher: any DatabaseConnection) throws -> Bool {
        try eventually {
            try watcher.first("SELECT count(*) FROM pg_locks WHERE pid = ? AND NOT granted", binding: [pid]) { $0.int(0) } ?? 0 > 0
        }
    }
}

/// Hands a connection to a thread of the test, which alone uses it meanwhile.
final class ConnectionBox<Connection>: @unchecked Sendable {
    let connection: Connection
    init(_ connection: Connection) { self.connection = connection }
}
