import CSQLite
import CSQLiteLogWrites

/// One SQLite connection, used by one thread at a time (opened `NOMUTEX`).
///
/// Statements are prepared once per SQL text and reused, transaction control
/// too: BEGIN and COMMIT run for every read and every event, and parsing them
/// each time would be a visible part of building view models. SQLite's errors become
/// `SQLiteError`s that carry its message and the SQL.
public final class SQLiteConnection: DatabaseConnection {
    let handle: OpaquePointer
    public let path: String
    public var engine: DatabaseEngine { .sqlite }
    private var statements: [String: SQLiteStatement] = [:]
    /// Statements kept prepared: one per text the store wrote.
    var preparedStatementCount: Int { statements.count }
    /// What `afterEachCommit` was given, kept as long as the connection.
    private var commitHook: CommitHook?

    public init(path: String, readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 5000) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        // The log's frames are written a commit at a time (see CSQLiteLogWrites).
        let status = sqlite3_open_v2(path, &handle, flags, tailor_sqlite_log_writes_vfs())
        guard status == SQLITE_OK, let handle else {
            let error = SQLiteError(code: status, connection: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Calls `body` on this connection's thread after each commit, with the
    /// connection's raw handle and the frames its write-ahead log now holds.
    /// Setting it turns SQLite's own checkpoints after commits off: `body`
    /// decides instead.
    func afterEachCommit(_ body: @escaping (OpaquePointer, Int) -> Void) {
        let hook = CommitHook(body)
        commitHook = hook
        sqlite3_wal_hook(handle, { context, handle, _, frames in
            guard let context, let handle else { return SQLITE_OK }
            Unmanaged<CommitHook>.fromOpaque(context).takeUnretainedValue().body(handle, Int(frames))
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }

    private final class CommitHook {
        let body: (OpaquePointer, Int) -> Void
        init(_ body: @escaping (OpaquePointer, Int) -> Void) { self.body = body }
    }

    /// Runs one or more statements that return no rows (schema, pragmas).
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if let message { sqlite3_free(message) }
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
    }

    @discardableResult
    public func run(_ sql: String, binding values: [any DatabaseBindable]) throws -> Int {
        let statement = try prepared(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The id is the connection's last inserted row: SQLite makes a `RETURNING`
    /// clause by filling a temporary table, a tenth of a message's insert.
    public func insertLater(_ sql: String, binding values: [any DatabaseBindable]) -> Later<Int?> {
        Later(result: Result { try run(sql, binding: values) == 0 ? nil : Int(sqlite3_last_insert_rowid(handle)) })
    }

    public func query<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> [Row] {
        let statement = try prepared(sql)
        try statement.bind(values)
        defer { statement.reset() }
        var rows: [Row] = []
        while try statement.step() {
            rows.append(try row(SQLiteRow(statement: statement.handle)))
        }
        return rows
    }

    public func first<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> Row? {
        let statement = try prepared(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? try row(SQLiteRow(statement: statement.handle)) : nil
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try control("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try control("COMMIT")
            return result
        } catch {
            try? control("ROLLBACK")
            throw error
        }
    }

    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try control("BEGIN")
        defer { try? control("COMMIT") }
        return try body()
    }

    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try control("SAVEPOINT event")
        do {
            let result = try body()
            try control("RELEASE event")
            return result
        } catch {
            try? control("ROLLBACK TO event")
            try? control("RELEASE event")
            throw error
        }
    }

    public func finishWriting() throws {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// A transaction's BEGIN, COMMIT and the like, from the statement cache.
    private func control(_ sql: String) throws {
        try run(sql, binding: [])
    }

    /// An integer pragma's value.
    public func pragma(_ name: String) throws -> Int {
        try first("PRAGMA \(name)", binding: []) { $0.int(0) } ?? 0
    }

    func prepared(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v3(self.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard status == SQLITE_OK, let handle else { throw error(status, sql: sql) }
        let statement = SQLiteStatement(handle: handle, sql: sql, connection: self)
        statements[sql] = statement
        return statement
    }

    func error(_ status: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: status, connection: handle, sql: sql)
    }
}
