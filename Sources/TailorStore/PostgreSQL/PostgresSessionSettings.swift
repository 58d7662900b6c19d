import TailorLoop

/// What each connection to PostgreSQL is told as it opens, so that a server
/// that stops in the middle of a transaction, or whose network goes, holds no
/// lock of the database for long, and a server waits a bounded time for one.
///
/// - `idleInTransaction`: PostgreSQL ends a session whose transaction has
///   waited this long for its client (a process frozen or cut off between the
///   round trips of a commit), undoing it and releasing its locks.
/// - `lockWait`: how long a statement waits for a lock another transaction
///   holds before it fails (SQLSTATE 55P03); nil waits as long as it takes.
///   The writer's: one row held elsewhere then stops one write, not all.
/// - TCP keepalives and a user timeout on both ends of the connection, so
///   that a peer that vanished (a cable, a frozen machine) is noticed within
///   seconds rather than at the system's two hours. A URL's own libpq options
///   (`keepalives_idle=…`) override these.
public struct PostgresSessionSettings: Sendable, Equatable {
    public var idleInTransaction: Duration = .seconds(5)
    public var lockWait: Duration?
    public var keepaliveIdleSeconds = 5
    public var keepaliveIntervalSeconds = 2
    public var keepaliveCount = 3
    /// Data sent and not acknowledged this long means the connection is gone.
    public var userTimeout: Duration = .seconds(10)
    /// Added to the connection's `application_name` (`tailor-writer`), so
    /// that `pg_stat_activity` tells the writer apart; letters and `-` only.
    public var nameSuffix = ""

    public init() {}

    /// The settings of the writer's connection: these, a bounded lock wait,
    /// and `-writer` after its name.
    public func waitingForLocks(atMost wait: Duration) -> PostgresSessionSettings {
        var settings = self
        settings.lockWait = wait
        settings.nameSuffix = Self.writerNameSuffix
        return settings
    }

    /// The end of every writer's `application_name`, on every server: the
    /// feed's followers wait for these sessions' transactions alone.
    public static let writerNameSuffix = "-writer"

    /// libpq's connection options, given before the URL so that the URL's win.
    var connectionOptions: [(key: String, value: String)] {
        [("fallback_application_name", "tailor"),
         ("keepalives", "1"),
         ("keepalives_idle", String(keepaliveIdleSeconds)),
         ("keepalives_interval", String(keepaliveIntervalSeconds)),
         ("keepalives_count", String(keepaliveCount)),
         ("tcp_user_timeout", String(userTimeout.inMilliseconds)),
         ("connect_timeout", "10")]
    }

    /// The session's settings, sent once the connection is open. Every
    /// statement here is small and by index: no statement is JIT-compiled
    /// (compiling one costs milliseconds, and PostgreSQL does it whenever the
    /// planner's estimate is large, as on a table not yet analyzed).
    var statements: String {
        var settings = nameSuffix.isEmpty ? [] : [Self.naming(with: nameSuffix)]
        settings += [
            "SET jit = off",
            "SET idle_in_transaction_session_timeout = \(idleInTransaction.inMilliseconds)",
            // The server's side of the same connection: it notices a client gone.
            "SET tcp_keepalives_idle = \(keepaliveIdleSeconds)",
            "SET tcp_keepalives_interval = \(keepaliveIntervalSeconds)",
            "SET tcp_keepalives_count = \(keepaliveCount)",
            "SET tcp_user_timeout = \(userTimeout.inMilliseconds)",
        ]
        if let lockWait { settings.append("SET lock_timeout = \(max(lockWait.inMilliseconds, 1))") }
        return settings.joined(separator: "; ")
    }

    /// SQL that adds `suffix` to the session's `application_name` (within
    /// PostgreSQL's 63 bytes). Written into the statement, since the
    /// session's settings go as one text; a suffix is letters and `-` only.
    static func naming(with suffix: String) -> String {
        precondition(suffix.allSatisfy { $0.isLetter || $0 == "-" }, "a connection's name suffix is letters and - only")
        return "SELECT set_config('application_name', left(current_setting('application_name') || '\(suffix)', 63), false)"
    }
}
