/// Web Push: the server's key, browsers' subscriptions, and the outbox of
/// pushes to deliver.
///
/// A push is queued in the transaction that stores its message, one row per
/// subscription of the recipient, due a moment later; a server's delivery
/// thread claims due rows by moving them a lease ahead, so that on several
/// servers each row is delivered by one, and a row whose server died is
/// claimed again once its lease runs out. A row is deleted when its push
/// service took it, or when a stream showing its chat was open (the user saw
/// the message): at most one duplicate, when a server dies between the push
/// service's answer and the delete.
extension Store {
    // MARK: The server's key

    /// The key pair's private half (32 raw bytes), if one was made.
    public func pushKey() throws -> [UInt8]? {
        try connection.first("SELECT private_key FROM push_key WHERE id = 1", binding: []) { $0.blob(0) }
    }

    /// Keeps `key` unless a key is kept already, and returns the one kept:
    /// servers starting together agree on the first.
    public func keepPushKey(_ key: [UInt8]) throws -> [UInt8] {
        try connection.run("INSERT INTO push_key (id, private_key) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", key)
        return try expectRow(try pushKey())
    }

    // MARK: Subscriptions

    /// Stores a browser's subscription for `user` (made in `session`, when in
    /// one), or takes over the one with the same endpoint: a browser has one
    /// endpoint, whoever signed in on it last. `tooManySubscriptions` past
    /// `limit` of the user's.
    public func subscribe(user: Int, session: Int?, endpoint: String, p256dh: [UInt8], auth: [UInt8], limit: Int,
                          at now: Int) throws -> PushSubscription {
        let others = try connection.first("""
            SELECT count(*) FROM push_subscriptions WHERE user_id = ? AND endpoint <> ?
            """, user, endpoint) { $0.int(0) } ?? 0
        guard others < limit else { throw StoreError.tooManySubscriptions }
        let id = try connection.first("""
            INSERT INTO push_subscriptions (user_id, session_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id, session_id = excluded.session_id,
                p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at
            RETURNING id
            """, user, session, endpoint, p256dh, auth, now) { $0.int(0) }
        return PushSubscription(id: try expectRow(id), userID: user, sessionID: session, endpoint: endpoint, p256dh: p256dh, auth: auth)
    }

    /// Removes `user`'s subscription at `endpoint`; `notFound` when they have none there.
    public func unsubscribe(user: Int, endpoint: String) throws {
        guard try connection.run("DELETE FROM push_subscriptions WHERE user_id = ? AND endpoint = ?", user, endpoint) == 1 else {
            throw StoreError.notFound
        }
    }

    /// Removes a subscription its push service no longer knows (404, 410).
    public func removeSubscription(id: Int) throws {
        try connection.run("DELETE FROM push_subscriptions WHERE id = ?", id)
    }

    // MARK: The outbox

    /// Queues a push of `message` to each subscription of `recipient`, due at
    /// `due`; answers how many, with the next round trip (see `Later`).
    public func queuePushes(of message: Int, to recipient: Int, due: Int) -> Later<Int> {
        connection.runLater("""
            INSERT INTO push_outbox (subscription_id, message_id, due_at)
            SELECT id, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM push_subscriptions WHERE user_id = ?
            """, message, due, recipient)
    }

    /// Takes up to `limit` pushes due at `now`, moving each `lease`
    /// milliseconds ahead so that no other server takes it meanwhile, oldest
    /// first. Two statements however many: the claimed rows are marked with a
    /// number of this claim's own, by which they are read back with their
    /// subscription and message.
    public func claimPushes(at now: Int, lease: Int, limit: Int) throws -> [PushJob] {
        let due = switch connection.engine {
        case .sqlite: "SELECT id FROM push_outbox WHERE due_at <= ?1 ORDER BY due_at LIMIT ?3"
        case .postgres: "SELECT id FROM push_outbox WHERE due_at <= ?1 ORDER BY due_at LIMIT ?3 FOR UPDATE SKIP LOCKED"
        }
        let claim = Int.random(in: 1...Int.max)
        guard try connection.run("""
            UPDATE push_outbox SET due_at = CAST(?1 AS BIGINT) + CAST(?2 AS BIGINT), attempts = attempts + 1, claim = ?4
            WHERE id IN (\(due))
            """, now, lease, limit, claim) > 0 else { return [] }
        return try connection.query("""
            SELECT o.id, o.attempts - 1, s.id, s.user_id, s.session_id, s.endpoint, s.p256dh, s.auth,
                   m.id, m.chat_id, m.sender_id, m.text, m.client_id, m.sent_at, u.name
            FROM push_outbox o
            JOIN push_subscriptions s ON s.id = o.subscription_id
            JOIN messages m ON m.id = o.message_id
            JOIN users u ON u.id = m.sender_id
            WHERE o.due_at = CAST(?1 AS BIGINT) + CAST(?2 AS BIGINT) AND o.claim = ?3
            ORDER BY o.id
            """, now, lease, claim) { row in
            PushJob(id: row.int(0),
                    subscription: PushSubscription(id: row.int(2), userID: row.int(3), sessionID: row.optionalInt(4),
                                                   endpoint: row.text(5), p256dh: row.blob(6), auth: row.blob(7)),
                    message: Message(id: row.int(8), chatID: row.int(9), senderID: row.int(10), text: row.text(11),
                                     clientID: row.optionalText(12), sentAt: row.int(13), isRead: false),
                    senderName: row.text(14), attempts: row.int(1))
        }
    }

    /// The push service took the push, or it is given up: it leaves the outbox.
    public func finishPush(id: Int) throws {
        try connection.run("DELETE FROM push_outbox WHERE id = ?", id)
    }

    /// The push is tried again at `due`.
    public func retryPush(id: Int, due: Int) throws {
        try connection.run("UPDATE push_outbox SET due_at = ? WHERE id = ?", due, id)
    }

    /// The recipient saw `message` on a stream: its pushes are not sent.
    public func cancelPushes(of message: Int) throws {
        try connection.run("DELETE FROM push_outbox WHERE message_id = ?", message)
    }
}
