import CSQLite

/// A failed SQLite call: the extended result code, SQLite's own message, and the
/// statement it came from.
public struct SQLiteError: DatabaseFailure, Sendable {
    public let code: SQLiteResultCode
    public let message: String
    public let sql: String?

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        self.code = SQLiteResultCode(code)
        message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    public var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " in: \($0)" } ?? "")
    }

    /// The disk (or the file's size limit) is full: nothing more is stored
    /// until room is made.
    public var isStorageFull: Bool { .full ~= code }

    /// A file has no connection to lose.
    public var isConnectionLost: Bool { false }

    /// A failure that may pass by itself: the file busy or locked beyond the
    /// busy timeout, an I/O error, or a file that cannot be written now.
    public var mayPass: Bool {
        switch code {
        case .busy, .locked, .ioError, .readOnly, .cannotOpen, .protocolError: true
        default: false
        }
    }

    public var isUniqueViolation: Bool {
        switch code {
        case .constraintUnique, .constraintPrimaryKey: true
        default: false
        }
    }

    public var isConstraintViolation: Bool { .constraint ~= code }

    /// One writer: no transaction is undone for another's sake.
    public var isConflictWithAnotherTransaction: Bool { false }

    /// One writer: its lock waits are the busy timeout's.
    public var isLockWaitTimeout: Bool { false }
}
