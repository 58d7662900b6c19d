extension Store {
    /// Records what a commit changed in PostgreSQL's feed, inside its
    /// transaction, and returns its position. Several servers commit at once,
    /// and a sequence number drawn early may become visible after a later one.
    /// So the position is drawn under a lock that the transaction holds until
    /// it commits: the next commit draws its position only after this one is
    /// visible, since PostgreSQL makes a commit visible before it releases its
    /// locks. The lock is taken last in the transaction, so it is held only
    /// for the commit itself. A server that has read position p has then seen
    /// every earlier one.
    ///
    /// One statement, sent with the commit: the lock is a row the insert
    /// joins, so it is taken before the position is drawn. The notification
    /// (sent at commit, delivered in commit order) names the position and the
    /// server that wrote it (`origin`), so that a server that has applied it
    /// already, or whose writer hands it its own entry, need not read; and
    /// it carries the entry's body when given (`carried`, small enough for a
    /// notification), so that the other servers apply it without reading the
    /// table at all. It is the transaction's last statement.
    func appendChangeAndCommit(_ body: [UInt8], origin: String, carried: String?) throws -> Int {
        try expectRow(try connection.firstCommitting("""
            WITH locked AS (SELECT pg_advisory_xact_lock(?1, hashtext(current_schema()))),
                 entry AS (INSERT INTO changes (position, body) SELECT nextval('changes_position'), CAST(?2 AS BYTEA) FROM locked
                           RETURNING position),
                 woken AS (SELECT pg_notify('tailor_feed_' || current_schema(),
                                            position::text || ' ' || ?3 || coalesce(' ' || CAST(?4 AS TEXT), '')) FROM entry)
            SELECT position FROM entry, woken
            """, PostgresSchema.feedLock, body, origin, carried) { $0.int(0) })
    }

    /// Readies a PostgreSQL connection of its own to follow the feed: its
    /// application name gets `suffix`, so that it is told apart from the
    /// server's other connections in `pg_stat_activity`, and it listens to the
    /// notifications `appendChangeAndCommit` sends, on the channel named after
    /// the schema; with `andToPresence`, to the servers' presence signals too.
    /// PostgreSQL wakes every connection that listens in a database at every
    /// notification, whatever its channel: one listening connection a server
    /// is half the wake-ups of two.
    public static func listenToFeed(on connection: PostgresConnection, namedWith suffix: String, andToPresence: Bool = false) throws {
        try name(connection, with: suffix)
        try listen(on: connection, to: "tailor_feed_")
        if andToPresence { try listen(on: connection, to: presenceChannel) }
    }

    /// Adds `suffix` to the connection's application name.
    public static func name(_ connection: PostgresConnection, with suffix: String) throws {
        try connection.run("SELECT set_config('application_name', left(current_setting('application_name') || ?, 63), false)", suffix)
    }

    /// Listens on the channel `prefix` followed by the schema's name: one
    /// channel per schema, so that databases side by side in one PostgreSQL
    /// database do not wake each other.
    static func listen(on connection: PostgresConnection, to prefix: String) throws {
        let schema = try connection.first("SELECT current_schema()", binding: []) { $0.text(0) } ?? "public"
        let channel = prefix + schema
        // Quoted as an identifier, as `pg_notify` names it: any schema name.
        try connection.execute("LISTEN \"" + channel.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\"")
    }

    /// Records on SQLite that positions up to `position` may be in use.
    func reservePositions(through position: Int) throws {
        try connection.run("UPDATE feed_reserved SET position = ?", position)
    }

    /// What a server following PostgreSQL's feed reads at once: up to `limit`
    /// entries after `position`, in order, with the latest position and the
    /// horizon as of the same snapshot. One statement, one round trip: the
    /// follower reads after nearly every commit.
    public func feedPage(after position: Int, limit: Int) throws -> FeedPage {
        var page = FeedPage()
        _ = try connection.query("""
            SELECT h.position, l.position, c.position, c.body
            FROM feed_horizon h
            CROSS JOIN (SELECT coalesce(max(position), 0) AS position FROM changes) l
            LEFT JOIN LATERAL (SELECT position, body FROM changes WHERE position > ?1 ORDER BY position LIMIT ?2) c ON true
            ORDER BY c.position
            """, position, limit) { row in
            page.horizon = row.int(0)
            page.latest = row.int(1)
            if let position = row.optionalInt(2) { page.entries.append((position, row.blob(3))) }
        }
        return page
    }

    /// The latest position in use: on PostgreSQL the latest entry's (0 when
    /// there is none); on SQLite the latest reserved, which no later commit
    /// goes below.
    public func lastPosition() throws -> Int {
        switch connection.engine {
        case .sqlite:
            try connection.first("SELECT position FROM feed_reserved", binding: []) { $0.int(0) } ?? 0
        case .postgres:
            try connection.first("SELECT coalesce(max(position), 0) FROM changes", binding: []) { $0.int(0) } ?? 0
        }
    }

    /// Deletes PostgreSQL's entries up to `horizon` and moves the horizon
    /// there, for the servers that follow the feed; one statement. Only the
    /// entries past the old horizon are looked for: the ones before it are
    /// deleted already, and until autovacuum removes them for good a search
    /// from the start would step over every one (tens of thousands a minute
    /// under load, which made this statement 20 ms instead of 1).
    /// Queued: it goes with the entry and the commit, so the horizon's row is
    /// never held while the writer waits.
    func pruneChanges(through horizon: Int) {
        _ = connection.runLater("""
            WITH old AS (SELECT position FROM feed_horizon),
                 moved AS (UPDATE feed_horizon SET position = greatest(position, ?1))
            DELETE FROM changes WHERE position > (SELECT position FROM old) AND position <= ?1
            """, horizon)
    }
}
