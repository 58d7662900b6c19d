/// A failed PostgreSQL call: the SQLSTATE code, the server's message, and the
/// statement it came from; or a connection that could not be made or was lost.
public struct PostgresError: DatabaseFailure, Sendable {
    /// Five characters; "08006" and the like when the connection itself failed.
    public let sqlState: String
    public let message: String
    public let sql: String?

    init(sqlState: String, message: String, sql: String?) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// The server could not be reached, or the connection broke. libpq's
    /// messages name the host and the user, never the password.
    static func connection(_ message: String) -> PostgresError {
        PostgresError(sqlState: "08006", message: message.trimmingTrailingNewlines, sql: nil)
    }

    /// A queued statement that was never sent: its transaction was undone first.
    static func notSent(_ sql: String) -> PostgresError {
        PostgresError(sqlState: "25P02", message: "not sent: its transaction was undone first", sql: sql)
    }

    public var description: String {
        "PostgreSQL error \(sqlState): \(message)" + (sql.map { " in: \($0)" } ?? "")
    }

    public var isStorageFull: Bool { sqlState == "53100" }

    /// Connection failures (class 08), a server shutting down or starting
    /// (57P01–57P03), a session ended for idling in its transaction (25P03),
    /// too many connections, and conflicts between transactions that a retry
    /// resolves (serialization, deadlock, lock wait).
    public var mayPass: Bool {
        isConnectionLost || ["53300", "40001", "40P01", "55P03"].contains(sqlState)
    }

    /// A connection exception (08…), the server shutting the session down
    /// (57P01–57P03), or ending it because its transaction idled too long (25P03).
    public var isConnectionLost: Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "25P03"].contains(sqlState)
    }

    public var isUniqueViolation: Bool { sqlState == "23505" }

    public var isConflictWithAnotherTransaction: Bool { sqlState == "40P01" || sqlState == "40001" }

    /// `lock_timeout` passed (lock_not_available).
    public var isLockWaitTimeout: Bool { sqlState == "55P03" }

    public var isConstraintViolation: Bool { sqlState.hasPrefix("23") }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while text.last?.isNewline == true { text = text.dropLast() }
        return String(text)
    }
}
