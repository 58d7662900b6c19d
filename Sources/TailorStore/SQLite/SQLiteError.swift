import CSQLite

/// A failed SQLite call: the extended result code, SQLite's own message, and the
/// statement it came from.
public struct SQLiteError: DatabaseFailure, Sendable {
    public let code: Int32
    public let message: String
    public let sql: String?

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        self.code = code
        message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    public var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " in: \($0)" } ?? "")
    }

    /// The disk (or the file's size limit) is full: nothing more is stored
    /// until room is made.
    public var isStorageFull: Bool { code & 0xFF == SQLITE_FULL }

    /// A failure that may pass by itself: the file busy or locked beyond the
    /// busy timeout, an I/O error, or a file that cannot be written now.
    public var mayPass: Bool {
        [SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PROTOCOL].contains(code & 0xFF)
    }

    public var isUniqueViolation: Bool { code == Self.constraintUnique || code == Self.constraintPrimaryKey }

    // Extended codes that Swift does not import from sqlite3.h (macros built of others).
    private static let constraintUnique = SQLITE_CONSTRAINT | 8 << 8
    private static let constraintPrimaryKey = SQLITE_CONSTRAINT | 6 << 8

    public var isConstraintViolation: Bool { code & 0xFF == SQLITE_CONSTRAINT }

    /// One writer: no transaction is undone for another's sake.
    public var isConflictWithAnotherTransaction: Bool { false }
}
