import CSQLite

/// A SQLite result code: the extended code as SQLite reports it, whose low
/// byte is the primary one (`SQLITE_CONSTRAINT_UNIQUE` is a kind of
/// `SQLITE_CONSTRAINT`). In a `switch` or with `~=`, a primary pattern matches
/// every extended code of its kind; an extended pattern matches only itself.
public struct SQLiteResultCode: Sendable, Equatable, CustomStringConvertible {
    public let extended: Int32

    public init(_ extended: Int32) {
        self.extended = extended
    }

    public var primary: SQLiteResultCode { SQLiteResultCode(extended & 0xFF) }
    public var isPrimary: Bool { extended & ~0xFF == 0 }

    public static func ~= (pattern: SQLiteResultCode, code: SQLiteResultCode) -> Bool {
        pattern.isPrimary ? pattern == code.primary : pattern == code
    }

    public var description: String { String(extended) }

    public static let busy = SQLiteResultCode(SQLITE_BUSY)
    public static let locked = SQLiteResultCode(SQLITE_LOCKED)
    public static let ioError = SQLiteResultCode(SQLITE_IOERR)
    public static let readOnly = SQLiteResultCode(SQLITE_READONLY)
    public static let cannotOpen = SQLiteResultCode(SQLITE_CANTOPEN)
    public static let protocolError = SQLiteResultCode(SQLITE_PROTOCOL)
    public static let full = SQLiteResultCode(SQLITE_FULL)
    public static let constraint = SQLiteResultCode(SQLITE_CONSTRAINT)
    // Extended codes that Swift does not import from sqlite3.h (macros built of others).
    public static let constraintUnique = SQLiteResultCode(SQLITE_CONSTRAINT | 8 << 8)
    public static let constraintPrimaryKey = SQLiteResultCode(SQLITE_CONSTRAINT | 6 << 8)
}
