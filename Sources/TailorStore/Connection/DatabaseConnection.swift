/// A connection to the database, SQLite or PostgreSQL: what the store's queries
/// and the event router's transactions need of either.
///
/// A connection is used by one thread at a time. Statements are written once,
/// in the SQL both engines read (`?` or `?N` parameters); each connection
/// prepares a statement once per text and reuses it.
public protocol DatabaseConnection: AnyObject {
    /// Which engine: the few statements that differ are chosen by it.
    var engine: DatabaseEngine { get }

    /// Runs one statement; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, binding values: [any DatabaseBindable]) throws -> Int

    /// Runs one query and maps each row.
    func query<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> [Row]

    /// The first row of a query, or nil.
    func first<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> Row?

    /// The first row of the last statement of a transaction, which may be
    /// committed with it in one round trip (PostgreSQL). Nothing may run
    /// after it in the transaction; outside one it is `first`.
    func firstCommitting<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> Row?

    /// Queues a statement whose first row is wanted, but not yet: it is sent
    /// with the next statement that must be answered now, or when an answer
    /// of the queue is read, in one round trip with the others queued
    /// (PostgreSQL). Where a round trip costs nothing (SQLite) it runs now.
    /// A failure is the answer's, and ends the sending of the rest: the
    /// statements after it are not run and answer with the same error.
    func firstLater<Row>(_ sql: String, binding values: [any DatabaseBindable],
                         row: @escaping (any DatabaseRow) throws -> Row) -> Later<Row?>

    /// Queues a statement, as `firstLater` does; its answer is how many rows it changed.
    func runLater(_ sql: String, binding values: [any DatabaseBindable]) -> Later<Int>

    /// Queues, as `firstLater` does, an INSERT of one row into a table keyed
    /// by `id` that may insert none (a conflict it does nothing on); its
    /// answer is the new row's id, nil when none was inserted.
    func insertLater(_ sql: String, binding values: [any DatabaseBindable]) -> Later<Int?>

    /// Runs `body` in a write transaction: committed if it returns, rolled back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T

    /// A read transaction: every statement of `body` sees one snapshot.
    func readTransaction<T>(_ body: () throws -> T) throws -> T

    /// Runs `body` inside a savepoint of the open transaction: if it throws,
    /// only its own changes are undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T

    /// After the last write, before the server stops: SQLite copies its
    /// write-ahead log into the database file, so that a stopped server
    /// leaves one file that holds everything.
    func finishWriting() throws
}

extension DatabaseConnection {
    /// Where a commit costs nothing extra to send (SQLite), the statement
    /// runs alone and the transaction commits as it ends.
    public func firstCommitting<Row>(_ sql: String, binding values: [any DatabaseBindable],
                                     row: (any DatabaseRow) throws -> Row) throws -> Row? {
        try first(sql, binding: values, row: row)
    }

    /// Where a statement costs no round trip (SQLite), it runs at once.
    public func firstLater<Row>(_ sql: String, binding values: [any DatabaseBindable],
                                row: @escaping (any DatabaseRow) throws -> Row) -> Later<Row?> {
        Later(result: Result { try first(sql, binding: values, row: row) })
    }

    public func runLater(_ sql: String, binding values: [any DatabaseBindable]) -> Later<Int> {
        Later(result: Result { try run(sql, binding: values) })
    }

    /// The id comes back with `RETURNING` (PostgreSQL).
    public func insertLater(_ sql: String, binding values: [any DatabaseBindable]) -> Later<Int?> {
        firstLater(sql + " RETURNING id", binding: values) { $0.int(0) }
    }

    public func insertLater(_ sql: String, _ values: any DatabaseBindable...) -> Later<Int?> {
        insertLater(sql, binding: values)
    }

    public func firstLater<Row>(_ sql: String, _ values: any DatabaseBindable...,
                                row: @escaping (any DatabaseRow) throws -> Row) -> Later<Row?> {
        firstLater(sql, binding: values, row: row)
    }

    public func runLater(_ sql: String, _ values: any DatabaseBindable...) -> Later<Int> {
        runLater(sql, binding: values)
    }

    public func firstCommitting<Row>(_ sql: String, _ values: any DatabaseBindable..., row: (any DatabaseRow) throws -> Row) throws -> Row? {
        try firstCommitting(sql, binding: values, row: row)
    }

    @discardableResult
    public func run(_ sql: String, _ values: any DatabaseBindable...) throws -> Int {
        try run(sql, binding: values)
    }

    public func query<Row>(_ sql: String, _ values: any DatabaseBindable..., row: (any DatabaseRow) throws -> Row) throws -> [Row] {
        try query(sql, binding: values, row: row)
    }

    public func first<Row>(_ sql: String, _ values: any DatabaseBindable..., row: (any DatabaseRow) throws -> Row) throws -> Row? {
        try first(sql, binding: values, row: row)
    }
}

public enum DatabaseEngine: Sendable {
    case sqlite
    case postgres
}

/// The current row of a query, read by column index.
public protocol DatabaseRow {
    func int(_ column: Int32) -> Int
    func optionalInt(_ column: Int32) -> Int?
    func text(_ column: Int32) -> String
    func optionalText(_ column: Int32) -> String?
    func blob(_ column: Int32) -> [UInt8]
}

/// A failure of the database itself, told apart the same way on both engines:
/// the server answers each kind alike, whichever engine it runs on.
public protocol DatabaseFailure: Error, CustomStringConvertible {
    /// The disk is full: nothing more is stored until room is made.
    var isStorageFull: Bool { get }
    /// A failure that may pass by itself: busy, locked, unreachable, restarting.
    var mayPass: Bool { get }
    /// The connection itself broke (the server restarted, the network went):
    /// the next use of the connection opens it anew.
    var isConnectionLost: Bool { get }
    /// A UNIQUE rule said no.
    var isUniqueViolation: Bool { get }
    /// The database undid this transaction for another's sake (a deadlock, a
    /// serialization failure): the whole transaction may be tried again.
    var isConflictWithAnotherTransaction: Bool { get }
    /// A lock another transaction holds was not granted within the writer's
    /// lock wait: that transaction is slow, or its server stopped inside it.
    var isLockWaitTimeout: Bool { get }
    /// A UNIQUE, CHECK, NOT NULL or foreign-key rule said no.
    var isConstraintViolation: Bool { get }
}
