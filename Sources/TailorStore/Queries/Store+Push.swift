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
    /// `limit` of the user's; `accountDisabled` for a disabled account, whose
    /// row is locked as a session's start locks it (`insertSession`), so
    /// that a disable waits for this and then removes it.
    public func subscribe(user: Int, session: Int?, endpoint: String, p256dh: [UInt8], auth: [UInt8], limit: Int,
                          at now: Int) throws -> PushSubscription {
        let lock = connection.engine == .postgres ? " FOR SHARE" : ""
        guard try connection.first("SELECT id FROM users WHERE id = ? AND disabled_at IS NULL\(lock)", user, row: { $0.int(0) }) != nil else {
            throw StoreError.accountDisabled
        }
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
    /// milliseconds ahead so that no other server takes it meanwhile.
    ///
    /// Fair: at most one push per subscription, none to a subscription in
    /// `busy` (this server has one in flight there), and users take turns:
    /// every user's oldest due push comes before anyone's second. First it
    /// prunes what no one should wait for: a pending push that a newer one of
    /// the same chat to the same subscription replaces (the notification
    /// shows the latest message), and past `maxPending` per subscription the
    /// oldest. On PostgreSQL rows another server is claiming are skipped, not
    /// waited for. The claimed rows are marked with a number of this claim's
    /// own, by which they are read back with their subscription and message.
    public func claimPushes(at now: Int, lease: Int, limit: Int, busy: Set<Int> = [], maxPending: Int = 100) throws -> PushClaim {
        let replaced = try connection.run("""
            DELETE FROM push_outbox WHERE id IN (\(Self.unlocked("""
                SELECT id FROM (SELECT o.id, row_number() OVER (PARTITION BY o.subscription_id, m.chat_id ORDER BY o.message_id DESC) AS newer
                                FROM push_outbox o JOIN messages m ON m.id = o.message_id) ranked
                WHERE newer > 1
                """, on: connection.engine)))
            """)
        let dropped = try connection.run("""
            DELETE FROM push_outbox WHERE id IN (\(Self.unlocked("""
                SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY subscription_id ORDER BY message_id DESC) AS newer
                                FROM push_outbox) ranked
                WHERE newer > ?1
                """, on: connection.engine)))
            """, maxPending)
        let due = Self.unlocked("""
            SELECT id FROM (SELECT o.id, o.due_at,
                                   row_number() OVER (PARTITION BY o.subscription_id ORDER BY o.due_at, o.id) AS nth,
                                   row_number() OVER (PARTITION BY s.user_id ORDER BY o.due_at, o.id) AS turn
                            FROM push_outbox o JOIN push_subscriptions s ON s.id = o.subscription_id
                            WHERE o.due_at <= ?1 AND o.subscription_id NOT IN (\(idsQuery("?5")))) due
            WHERE nth = 1 ORDER BY turn, due_at LIMIT ?3
            """, on: connection.engine)
        let claim = Int.random(in: 1...Int.max)
        guard try connection.run("""
            UPDATE push_outbox SET due_at = CAST(?1 AS BIGINT) + CAST(?2 AS BIGINT), attempts = attempts + 1, claim = ?4
            WHERE id IN (\(due))
            """, now, lease, limit, claim, idList(busy.sorted())) > 0 else { return PushClaim(jobs: [], replaced: replaced, dropped: dropped) }
        let jobs = try connection.query("""
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
        return PushClaim(jobs: jobs, replaced: replaced, dropped: dropped)
    }

    /// The outbox rows `select` names; on PostgreSQL only those no other
    /// transaction holds (a window cannot be locked itself, so its rows are
    /// locked through their ids).
    private static func unlocked(_ select: String, on engine: DatabaseEngine) -> String {
        switch engine {
        case .sqlite: select
        case .postgres: "SELECT id FROM push_outbox WHERE id IN (\(select)) FOR UPDATE SKIP LOCKED"
        }
    }

    /// A claimed push that this server will not send now (its push service
    /// has as many in flight as it may): due again at `due`, its attempt not counted.
    public func releasePush(id: Int, due: Int) throws {
        try connection.run("UPDATE push_outbox SET due_at = ?, attempts = attempts - 1 WHERE id = ?", due, id)
    }

    /// The push service took a push for `subscription`: it is not failing.
    public func recordSubscriptionWorking(id: Int) throws {
        try connection.run("UPDATE push_subscriptions SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL", id)
    }

    /// A push to `subscription` got no answer or a refusal to take it now:
    /// failing since its first such failure, it is removed once that is
    /// `dropAfter` milliseconds past. Answers whether it was removed.
    public func recordSubscriptionFailing(id: Int, at now: Int, dropAfter: Int) throws -> Bool {
        try connection.run("UPDATE push_subscriptions SET failing_since = ?1 WHERE id = ?2 AND failing_since IS NULL", now, id)
        return try connection.run("DELETE FROM push_subscriptions WHERE id = ?1 AND failing_since <= ?2", id, now - dropAfter) > 0
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
