import Glibc
import TailorLoop

extension Store {
    /// Records what a commit changed in PostgreSQL's feed, inside its
    /// transaction, and returns its position: the sequence's next, drawn as
    /// the commit's last statement. Servers commit at once and no commit waits
    /// for another's: a position may become visible before a smaller one (a
    /// commit under way) or instead of it (a commit undone). Followers apply
    /// the feed in order all the same (`FeedGaps`), which needs one thing of
    /// this statement: the transaction has its id before it draws the
    /// position, so that a snapshot taken once a later position is visible
    /// lists it as in progress. The id is asked for first and the position
    /// drawn only for the row it gives.
    ///
    /// One round trip: the statement, the commit, and after the commit the
    /// notification that wakes the other servers. PostgreSQL keeps
    /// notifications in commit order with a lock that a notifying transaction
    /// holds until its commit is durable: sent inside the commit, it made
    /// every server's commit wait for the flush of the one before. Sent
    /// apart, in a transaction that does not wait for its flush, it holds
    /// that lock for no flush (a notification lost with a crash of the
    /// database is made up for by the followers' poll). It names the position
    /// (the session's last drawn, `currval`) and the server that wrote it
    /// (`origin`), so that a server whose writer hands it its own entry need
    /// not read; and it carries the entry's body when given (`carried`, small
    /// enough for a notification), so that the other servers apply it
    /// without reading the table at all. Without `notify` (every server
    /// hears the commits on the bus instead) the commit is all.
    func appendChangeAndCommit(_ body: [UInt8], users: [Int]?, origin: String, carried: String?, notify: Bool = true) throws -> Int {
        let append = """
            WITH own AS MATERIALIZED (SELECT pg_current_xact_id() AS id)
            INSERT INTO changes (position, body, users)
            SELECT nextval('changes_position'), CAST(?1 AS BYTEA), CAST(string_to_array(?2, ',') AS BIGINT[]) FROM own
            WHERE own.id IS NOT NULL RETURNING position
            """
        let audience = users.map(Self.listText)
        // SQLite's feed keeps no entries (`FeedAppender`): only PostgreSQL's writer comes here.
        guard let postgres = connection as? PostgresConnection else { preconditionFailure("the feed's entries are PostgreSQL's") }
        guard notify else { return try expectRow(try postgres.firstCommitting(append, binding: [body, audience]) { $0.int(0) }) }
        let notification = """
            SELECT set_config('synchronous_commit', 'off', true),
                   pg_notify('\(Self.feedChannelPrefix)' || current_schema(),
                             currval('changes_position')::text || ' ' || ?1 || coalesce(' ' || CAST(?2 AS TEXT), ''))
            """
        return try expectRow(try postgres.firstCommitting(append, binding: [body, audience], thenApart: (notification, [origin, carried])) {
            $0.int(0)
        })
    }

    /// Users as the feed's SQL takes and gives them: `1,2,3`.
    static func listText(_ users: [Int]) -> String {
        users.map(String.init).joined(separator: ",")
    }

    /// The users of `listText`; nil for NULL, or anything else.
    static func users(fromListText text: String?) -> [Int]? {
        guard let text else { return nil }
        if text.isEmpty { return [] }
        var users: [Int] = []
        for part in text.split(separator: ",") {
            guard let user = Int(part) else { return nil }
            users.append(user)
        }
        return users
    }

    /// The schema the server's tables are in: one database holds several Tailors in schemas of their own.
    public func currentSchema() throws -> String {
        try connection.first("SELECT current_schema()", binding: []) { $0.text(0) } ?? "public"
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
        try listen(on: connection, to: feedChannelPrefix)
        if andToPresence { try listen(on: connection, to: presenceChannel) }
    }

    /// The start of the feed's notification channel, which the schema's name ends.
    static let feedChannelPrefix = "tailor_feed_"

    /// Adds `suffix` to the connection's application name.
    public static func name(_ connection: PostgresConnection, with suffix: String) throws {
        try connection.execute(PostgresSessionSettings.naming(with: suffix))
    }

    /// Listens on the channel `prefix` followed by the schema's name: one
    /// channel per schema, so that databases side by side in one PostgreSQL
    /// database do not wake each other.
    static func listen(on connection: PostgresConnection, to prefix: String) throws {
        let schema = try Store(connection).currentSchema()
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
    /// horizon as of the same statement, and whether every transaction of
    /// `writers` (as `writersInProgress` gave them) had ended when it began.
    /// One statement, one round trip: the follower reads after nearly every commit.
    public func feedPage(after position: Int, limit: Int, settling writers: String? = nil) throws -> FeedPage {
        var page = FeedPage()
        _ = try connection.query("""
            SELECT h.position, l.position, CAST((\(Self.hasEnded("?3"))) AS INTEGER), c.position, c.body, array_to_string(c.users, ',')
            FROM feed_horizon h
            CROSS JOIN (SELECT coalesce(max(position), 0) AS position FROM changes) l
            LEFT JOIN LATERAL (SELECT position, body, users FROM changes WHERE position > ?1 ORDER BY position LIMIT ?2) c ON true
            ORDER BY c.position
            """, position, limit, writers) { row in
            page.horizon = row.int(0)
            page.latest = row.int(1)
            page.writersEnded = row.int(2) != 0
            if let position = row.optionalInt(3) {
                page.entries.append((position, row.blob(4), Self.users(fromListText: row.optionalText(5))))
            }
        }
        return page
    }

    /// The body of the entry at `position`; nil once pruned. For an entry
    /// known by its stub alone, whose user came to be served as it was applied.
    public func feedBody(at position: Int) throws -> [UInt8]? {
        try connection.first("SELECT body FROM changes WHERE position = ?", binding: [position]) { $0.blob(0) }
    }

    /// The entries that touch `user` after `position` through `last`, in
    /// order, at most `limit` (the latest of them), found by the users'
    /// index: for a stream resuming where the feed passed its user over.
    public func feedEntries(touching user: Int, after position: Int, through last: Int, limit: Int) throws -> [(position: Int, body: [UInt8])] {
        try connection.query("""
            SELECT position, body FROM (
                SELECT position, body FROM changes
                WHERE users @> ARRAY[CAST(?1 AS BIGINT)] AND position > ?2 AND position <= ?3
                ORDER BY position DESC LIMIT ?4
            ) latest ORDER BY position
            """, user, position, last, limit) { ($0.int(0), $0.blob(1)) }
    }

    /// The transactions that may still commit an entry of the feed: those of
    /// every server's writer on this database (`PostgresSessionSettings`
    /// names its connection), and those no session can be told for (a
    /// prepared transaction), as a list of `xid8` in text. Other programs'
    /// transactions, and other databases', are not in it: they draw no
    /// position. Every transaction holds a lock on its own id while it runs,
    /// which `pg_locks` shows whoever's it is, and `pg_stat_activity` shows
    /// every session's database and name. `pg_locks` gives 32-bit ids: each is
    /// made whole from the snapshot's oldest, which no running one precedes.
    ///
    /// Read once a snapshot has shown what is missing, it holds every
    /// transaction that could fill it and has not ended by then.
    public func writersInProgress() throws -> String {
        try expectRow(try connection.first("""
            WITH s AS (SELECT CAST(CAST(pg_snapshot_xmin(pg_current_snapshot()) AS TEXT) AS BIGINT) AS xmin)
            SELECT CAST(coalesce(array_agg(CAST(CAST(
                       s.xmin + ((CAST(CAST(l.transactionid AS TEXT) AS BIGINT) - s.xmin) % 4294967296 + 4294967296) % 4294967296
                   AS TEXT) AS xid8)), '{}') AS TEXT)
            FROM s, pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
              AND (l.pid IS NULL OR (a.datname = current_database() AND a.application_name LIKE '%' || ?))
            """, PostgresSessionSettings.writerNameSuffix) { $0.text(0) })
    }

    /// Which entries past `applied` the snapshot of the read transaction this
    /// store is in shows; its first statement begins it. The follower has
    /// seen every entry through `applied` committed or given up, so the
    /// snapshot shows all of those.
    public func feedPlace(after applied: Int) throws -> FeedPlace {
        FeedPlace(through: applied, beyond: try connection.query("SELECT position FROM changes WHERE position > ? ORDER BY position",
                                                                 applied) { $0.int(0) })
    }

    /// The position a server starts following PostgreSQL's feed from: the
    /// latest visible, once every writer's transaction in progress when it was
    /// read has ended, so that no entry before it can still come. Past
    /// `patience` (a writer that does not end) it starts there all the same;
    /// `settled` says whether it waited long enough.
    ///
    /// Between two looks it waits for a commit's notification, on a
    /// connection that listens to the feed (`listening`, or for the time of
    /// the wait): most writers end by committing. One undone announces
    /// nothing, so a look comes at the latest after `settlingPause`, doubled
    /// at each look up to ten times it. The notifications are taken: a
    /// follower that listens reads the feed after this anyway.
    public func settledPosition(patience: Duration, listening: Bool = false) throws -> (position: Int, settled: Bool) {
        guard let postgres = connection as? PostgresConnection else { return (try lastPosition(), true) }
        let latest = try lastPosition()
        let writers = try writersInProgress()
        let giveUp = MonotonicClock.after(patience)
        if !listening { try Self.listen(on: postgres, to: Self.feedChannelPrefix) }
        var pause = Self.settlingPause
        var settled = true
        while try !expectRow(try connection.first("SELECT CAST((\(Self.hasEnded("?"))) AS INTEGER)", writers) { $0.int(0) != 0 }) {
            let now = MonotonicClock.now
            guard now < giveUp else {
                settled = false
                break
            }
            _ = try postgres.waitForNotifications(atMost: min(MonotonicClock.nanoseconds(pause), giveUp - now))
            pause = min(pause * 2, Self.settlingPause * 10)
        }
        if !listening { try postgres.execute("UNLISTEN *") }
        return (latest, settled)
    }

    /// SQL: whether every transaction of the list `parameter` names (`xid8`
    /// in text, as `writersInProgress` gives; none when NULL) had ended when
    /// the statement's own snapshot was taken.
    private static func hasEnded(_ parameter: String) -> String {
        "SELECT coalesce(bool_and(pg_visible_in_snapshot(x, pg_current_snapshot())), true) "
            + "FROM unnest(CAST(\(parameter) AS xid8[])) x"
    }

    /// The first wait between two looks at whether the commits in progress ended.
    static let settlingPause: Duration = .milliseconds(5)

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
