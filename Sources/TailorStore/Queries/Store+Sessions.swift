extension Store {
    /// Starts a session for `user`, unless their account is disabled
    /// (`accountDisabled`): checked in the same statement, so that a disable
    /// committed before leaves no session. On PostgreSQL the statement also
    /// locks the account's row (`FOR SHARE`): a disable that comes while this
    /// transaction is open waits for its commit, then ends the session with
    /// the others; one committed meanwhile is seen, and nothing is inserted.
    /// (SQLite runs one write at a time: the two cannot overlap.)
    public func insertSession(_ session: NewSession, user: Int, at now: Int) throws -> Session {
        let lock = connection.engine == .postgres ? " FOR SHARE" : ""
        let id = try connection.first("""
            INSERT INTO sessions (user_id, token_hash, created_at, last_seen_at, user_agent)
            SELECT account.id, ?, ?, ?, ? FROM (SELECT id FROM users WHERE id = ? AND disabled_at IS NULL\(lock)) account
            RETURNING id
            """, session.tokenHash, now, now, session.userAgent, user) { $0.int(0) }
        guard let id else { throw StoreError.accountDisabled }
        return Session(id: id, userID: user, tokenHash: session.tokenHash, createdAt: now, lastSeenAt: now, userAgent: session.userAgent)
    }

    /// The session with this token and its user.
    public func session(tokenHash: [UInt8]) throws -> (Session, User)? {
        try connection.first("""
            SELECT s.id, s.user_id, s.created_at, s.last_seen_at, s.user_agent, u.name
            FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND u.disabled_at IS NULL
            """, tokenHash) { row in
            (Session(id: row.int(0), userID: row.int(1), tokenHash: tokenHash, createdAt: row.int(2), lastSeenAt: row.int(3),
                     userAgent: row.text(4)),
             User(id: row.int(1), name: row.text(5)))
        }
    }

    /// A page of a user's sessions, newest first: `limit` of them from `offset`.
    public func sessions(of user: Int, offset: Int = 0, limit: Int = Int(Int32.max)) throws -> [Session] {
        try connection.query("""
            SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?
            """, user, limit, offset, row: Self.session)
    }

    /// Ends one of `user`'s sessions and returns it; `notFound` when it is not theirs.
    public func deleteSession(id: Int, user: Int) throws -> Session {
        guard let ended = try connection.first("""
            DELETE FROM sessions WHERE id = ? AND user_id = ? RETURNING \(Self.sessionColumns)
            """, id, user, row: Self.session) else { throw StoreError.notFound }
        return ended
    }

    /// Ends every session of `user` but `kept`, and returns those it ended.
    public func deleteSessions(of user: Int, except kept: Int?) throws -> [Session] {
        try connection.query("""
            DELETE FROM sessions WHERE user_id = ? AND id <> ? RETURNING \(Self.sessionColumns)
            """, user, kept ?? 0, row: Self.session)
    }

    /// Ends `user`'s sessions older than the newest `kept` (at least one), and returns them.
    public func deleteSessions(of user: Int, keepingNewest kept: Int) throws -> [Session] {
        try connection.query("""
            DELETE FROM sessions WHERE user_id = ?1
            AND id < (SELECT id FROM sessions WHERE user_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
            RETURNING \(Self.sessionColumns)
            """, user, kept - 1, row: Self.session)
    }

    private static let sessionColumns = "id, user_id, token_hash, created_at, last_seen_at, user_agent"

    private static func session(_ row: any DatabaseRow) throws -> Session {
        Session(id: row.int(0), userID: row.int(1), tokenHash: row.blob(2), createdAt: row.int(3), lastSeenAt: row.int(4), userAgent: row.text(5))
    }

    public func recordSessionSeen(id: Int, at now: Int) throws {
        try connection.run("UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?", now, id, now)
    }
}
