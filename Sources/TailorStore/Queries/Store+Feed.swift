extension Store {
    /// Records what a commit changed in the feed, inside its transaction, and
    /// returns its position. Positions increase in the order commits become
    /// visible, so a server that has read position p has seen every earlier one:
    /// - SQLite has one writer: the table's own increasing key is that order.
    /// - On PostgreSQL several servers commit at once, and a sequence number
    ///   drawn early may become visible after a later one. So the position is
    ///   drawn under a lock that the transaction holds until it commits: the
    ///   next commit draws its position only after this one is visible, since
    ///   PostgreSQL makes a commit visible before it releases its locks. The
    ///   lock is taken last in the transaction, so it is held only for the
    ///   commit itself.
    public func appendChange(_ body: [UInt8]) throws -> Int {
        switch connection.engine {
        case .sqlite:
            return try expectRow(try connection.first("INSERT INTO changes (body) VALUES (?) RETURNING position", body) { $0.int(0) })
        case .postgres:
            try connection.run("SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))", PostgresSchema.feedLock)
            // Sent at commit, one per transaction: it only wakes the servers
            // that follow the feed, which then read the table.
            try connection.run("SELECT pg_notify('tailor_feed_' || current_schema(), '')")
            return try expectRow(try connection.first("""
                INSERT INTO changes (position, body) VALUES (nextval('changes_position'), ?) RETURNING position
                """, body) { $0.int(0) })
        }
    }

    /// Up to `limit` entries after `position`, in order.
    public func changes(after position: Int, limit: Int) throws -> [(position: Int, body: [UInt8])] {
        try connection.query("SELECT position, body FROM changes WHERE position > ? ORDER BY position LIMIT ?", position, limit) {
            ($0.int(0), $0.blob(1))
        }
    }

    /// The position of the latest entry; 0 when there is none.
    public func lastPosition() throws -> Int {
        try connection.first("SELECT coalesce(max(position), 0) FROM changes", binding: []) { $0.int(0) } ?? 0
    }

    /// Deletes entries more than `kept` positions behind the latest. The latest
    /// always stays, so that SQLite's next position follows it. On PostgreSQL
    /// the horizon moves with them, for the servers that follow the feed.
    public func pruneChanges(keeping kept: Int) throws {
        let horizon = try lastPosition() - max(kept, 1)
        try connection.run("DELETE FROM changes WHERE position <= ?", horizon)
        if connection.engine == .postgres {
            try connection.run("UPDATE feed_horizon SET position = greatest(position, ?)", horizon)
        }
    }

    /// Entries at or below this position were pruned (0 on SQLite, where no
    /// other server follows the feed).
    public func feedHorizon() throws -> Int {
        guard connection.engine == .postgres else { return 0 }
        return try connection.first("SELECT position FROM feed_horizon", binding: []) { $0.int(0) } ?? 0
    }
}
