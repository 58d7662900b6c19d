extension Store {
    public func insertSession(_ session: NewSession, user: Int, at now: Int) throws -> Session {
        let id = try connection.first("""
            INSERT INTO sessions (user_id, token_hash, created_at, last_seen_at, user_agent) VALUES (?, ?, ?, ?, ?) RETURNING id
            """, user, session.tokenHash, now, now, session.userAgent) { $0.int(0) }
        return Session(id: try expectRow(id), userID: user, tokenHash: session.tokenHash, createdAt: now, lastSeenAt: now,
                       userAgent: session.userAgent)
    }

    /// The session with this token and its user.
    public func session(tokenHash: [UInt8]) throws -> (Session, User)? {
        try connection.first("""
            SELECT s.id, s.user_id, s.created_at, s.last_seen_at, s.user_agent, u.name
            FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?
            """, tokenHash) { row in
            (Session(id: row.int(0), userID: row.int(1), tokenHash: tokenHash, createdAt: row.int(2), lastSeenAt: row.int(3),
                     userAgent: row.text(4)),
             User(id: row.int(1), name: row.text(5)))
        }
    }

    /// A user's sessions, newest first.
    public func sessions(of user: Int) throws -> [Session] {
        try connection.query("""
            SELECT id, token_hash, created_at, last_seen_at, user_agent FROM sessions WHERE user_id = ? ORDER BY id DESC
            """, user) { row in
            Session(id: row.int(0), userID: user, tokenHash: row.blob(1), createdAt: row.int(2), lastSeenAt: row.int(3), userAgent: row.text(4))
        }
    }

    /// Ends one of `user`'s sessions and returns it; `notFound` when it is not theirs.
    public func deleteSession(id: Int, user: Int) throws -> Session {
        guard let session = try sessions(of: user).first(where: { $0.id == id }) else { throw StoreError.notFound }
        try connection.run("DELETE FROM sessions WHERE id = ?", id)
        return session
    }

    /// Ends every session of `user` but `kept`, and returns those it ended.
    public func deleteSessions(of user: Int, except kept: Int?) throws -> [Session] {
        let ended = try sessions(of: user).filter { $0.id != kept }
        for session in ended { try connection.run("DELETE FROM sessions WHERE id = ?", session.id) }
        return ended
    }

    public func recordSessionSeen(id: Int, at now: Int) throws {
        try connection.run("UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?", now, id, now)
    }
}
