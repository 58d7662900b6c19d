extension Store {
    /// Creates a user; the name is unique ignoring case.
    /// A new user; `passwordHash` when they chose a password.
    public func insertUser(name: String, passwordHash: String? = nil, at now: Int) throws -> User {
        let id: Int?
        do {
            id = try connection.first("INSERT INTO users (name, name_key, created_at, password_hash) VALUES (?, ?, ?, ?) RETURNING id",
                                      name, name.lowercased(), now, passwordHash) { $0.int(0) }
        } catch let error as any DatabaseFailure where error.isUniqueViolation {
            throw StoreError.nameTaken
        }
        return User(id: try expectRow(id), name: name)
    }

    public func insertToken(hash: [UInt8], user: Int, at now: Int) throws {
        try connection.run("INSERT INTO tokens (hash, user_id, created_at) VALUES (?, ?, ?)", hash, user, now)
    }

    /// The user an account token signs in; none for a disabled account.
    public func user(tokenHash: [UInt8]) throws -> User? {
        try connection.first("""
            SELECT u.id, u.name FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND u.disabled_at IS NULL
            """, tokenHash) {
            User(id: $0.int(0), name: $0.text(1))
        }
    }

    public func user(id: Int) throws -> User? {
        try connection.first("SELECT id, name, last_seen_at, show_presence FROM users WHERE id = ?", id) {
            User(id: $0.int(0), name: $0.text(1), lastSeenAt: $0.optionalInt(2), showsPresence: $0.int(3) != 0)
        }
    }

    /// Sets whether `user` lets contacts see their presence; whether it changed.
    public func setShowsPresence(_ shows: Bool, of user: Int) throws -> Bool {
        try connection.run("UPDATE users SET show_presence = ?2 WHERE id = ?1 AND show_presence <> ?2", user, shows ? 1 : 0) == 1
    }

    /// Disables the account of `name` (nil: enables it again): a disabled
    /// account signs in with nothing. Either way its browser sessions end: a
    /// disabled account keeps none, and one enabled again signs in anew, so
    /// that no session started in a race with the disable comes back.
    /// Disabling also removes its push subscriptions (the pushes waiting for
    /// them go with them): nothing is pushed to it. Answers the user and the
    /// sessions ended; nil when no user has that name.
    public func setDisabled(_ name: String, at time: Int?) throws -> (user: User, endedSessions: [Session])? {
        guard let user = try user(named: name) else { return nil }
        try connection.run("UPDATE users SET disabled_at = ? WHERE id = ?", time, user.id)
        let ended = try deleteSessions(of: user.id, except: nil)
        if time != nil { try connection.run("DELETE FROM push_subscriptions WHERE user_id = ?", user.id) }
        return (user, ended)
    }

    /// The disabled accounts among `users`.
    public func disabled(among users: [Int]) throws -> Set<Int> {
        guard !users.isEmpty else { return [] }
        return Set(try connection.query("SELECT id FROM users WHERE disabled_at IS NOT NULL AND id IN (\(idsQuery()))",
                                        binding: [idList(users)]) { $0.int(0) })
    }

    /// Records that `user` was last seen at `time`, unless a later time is
    /// recorded already (two servers may both see a user leave); whether it did.
    public func recordLastSeen(of user: Int, at time: Int) throws -> Bool {
        try connection.run("UPDATE users SET last_seen_at = ?2 WHERE id = ?1 AND (last_seen_at IS NULL OR last_seen_at < ?2)", user, time) == 1
    }

    /// The user with this name, ignoring case.
    public func setPasswordHash(_ hash: String, of user: Int) throws {
        guard try connection.run("UPDATE users SET password_hash = ? WHERE id = ?", hash, user) == 1 else { throw StoreError.unknownUser }
    }

    /// The stored password hash of `user`; nil when they set none.
    public func passwordHash(of user: Int) throws -> String? {
        try connection.first("SELECT password_hash FROM users WHERE id = ?", user) { $0.optionalText(0) } ?? nil
    }

    /// The user of `name` (ignoring case) and their stored password hash, nil when they set none.
    public func userAndPasswordHash(named name: String) throws -> (user: User, passwordHash: String?)? {
        try connection.first("SELECT id, name, password_hash FROM users WHERE name_key = ? AND disabled_at IS NULL", name.lowercased()) {
            (User(id: $0.int(0), name: $0.text(1)), $0.optionalText(2))
        }
    }

    public func user(named name: String) throws -> User? {
        try connection.first("SELECT id, name FROM users WHERE name_key = ?", name.lowercased()) { User(id: $0.int(0), name: $0.text(1)) }
    }
}
