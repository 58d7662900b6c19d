/// Read state is a cursor per chat member (`chat_members.read_through`): the
/// id of the last message that member has read. A message is read exactly
/// when it lies at or before the cursor of the member who did not send it,
/// and a member's unread messages are the other's after their cursor.
/// Marking read is one row's update, whatever the number of messages.
///
/// Cursors are message ids, so ids must grow in the order messages commit
/// within a chat. SQLite's single writer gives that; on PostgreSQL, where
/// several servers insert at once, a message takes a share lock on its chat
/// before its id is drawn, and marking read takes the chat's exclusive lock
/// before it finds the newest message: a message whose id is drawn before the
/// mark commits before the mark looks, and one drawn after comes after it.
///
/// A transaction that writes to several chats takes their locks first, in
/// ascending id order (`lockChats`): two servers' batches then never hold one
/// chat each while waiting for the other's.
extension Store {
    // MARK: Writes

    /// Takes the locks that messages in `sharing` and read marks in
    /// `exclusively` will take, at once and in ascending chat id, each chat
    /// in the strongest mode it needs. Every transaction that locks chats in
    /// one order cannot wait in a cycle with another, so a batch that does
    /// this before its writes cannot deadlock with another server's batch on
    /// chat locks; the writes' own lock statements then find them held.
    /// Queued (see `Later`): they go in the batch's first round trip. Only
    /// PostgreSQL has several writers; on SQLite this takes nothing.
    ///
    /// The chats of `withoutWaiting` are not waited for (`SKIP LOCKED`): the
    /// answer is those of them taken, and the others are held by another
    /// transaction. Reading it sends the locks.
    public func lockChats(sharing: Set<Int>, exclusively: Set<Int>, withoutWaiting tried: Set<Int> = []) -> Later<Set<Int>> {
        guard connection.engine == .postgres else { return .known(tried) }
        var taken: [Later<Int?>] = []
        for chat in sharing.union(exclusively).sorted() {
            let lock = exclusively.contains(chat) ? Self.lockForReadMark : Self.lockForMessage
            if tried.contains(chat) {
                taken.append(connection.firstLater(lock + " SKIP LOCKED", chat) { $0.int(0) })
            } else {
                _ = connection.runLater(lock, chat)
            }
        }
        return taken.isEmpty ? .known([]) : Later { Set(try taken.compactMap { try $0.value() }) }
    }

    /// For the rest of the transaction, a lock another transaction holds is
    /// waited for `wait` at most (PostgreSQL's `lock_timeout`, in whole
    /// milliseconds, one at least); queued, it goes with the next round trip.
    /// Nothing on SQLite.
    public func waitForLocks(atMost wait: Duration) {
        guard connection.engine == .postgres else { return }
        _ = connection.runLater("SELECT set_config('lock_timeout', ?, true)", String(max(wait.inMilliseconds, 1)))
    }

    /// The chat's lock a message takes before its id is drawn: it lets other
    /// messages in, and keeps a read mark out until it commits.
    private static let lockForMessage = "SELECT id FROM chats WHERE id = ? FOR KEY SHARE"
    /// The chat's lock a read mark takes before it finds the newest message.
    private static let lockForReadMark = "SELECT id FROM chats WHERE id = ? FOR UPDATE"

    /// The chat of the pair, created if there is none; `created` says which.
    /// Two servers opening the same pair at once create one chat: the insert
    /// that comes second inserts nothing and finds the first one's chat.
    public func findOrCreateChat(between first: Int, and second: Int, at now: Int) throws -> (chat: Chat, created: Bool) {
        let (a, b) = (min(first, second), max(first, second))
        if let chat = try chat(between: a, and: b) { return (chat, false) }
        if let id = try connection.first("""
            INSERT INTO chats (user_a, user_b, created_at) VALUES (?, ?, ?)
            ON CONFLICT (user_a, user_b) DO NOTHING RETURNING id
            """, a, b, now, row: { $0.int(0) }) {
            try connection.run("INSERT INTO chat_members (chat_id, user_id, read_through) VALUES (?1, ?2, 0), (?1, ?3, 0)", id, a, b)
            return (Chat(id: id, userA: a, userB: b, createdAt: now), true)
        }
        return (try expectRow(try chat(between: a, and: b)), false)
    }

    /// Stores a message, unless its sender sent one with the same client id in
    /// this chat before: then nothing is stored and that earlier message comes
    /// back as a `duplicate`. A retry that two servers get at once is stored once.
    /// A stored message queues a push to each of `recipient`'s (when given) push
    /// subscriptions, due at `pushDue` (see `Store+Push`), in the same
    /// statement on PostgreSQL; `pushes` says how many.
    /// The answer comes with the next round trip (see `Later`): a batch sends
    /// all its messages at once.
    /// `position`: on SQLite, the feed position the transaction's commit
    /// takes (`FeedAppender.upcomingPosition`), kept with the message.
    public func insertMessage(chat: Int, sender: Int, text: String, clientID: String?, recipient: Int? = nil, pushDue: Int = 0,
                              position: Int? = nil, at now: Int) -> Later<(message: Message, duplicate: Bool, pushes: Int)> {
        let stored: Later<(id: Int, pushes: Int)?>
        switch connection.engine {
        case .sqlite:
            // Statements run at once here: the pushes are queued now, once.
            let id = connection.insertLater("""
                INSERT INTO messages (chat_id, sender_id, text, client_id, sent_at, position) SELECT ?1, ?2, ?3, ?4, ?5, ?6
                WHERE NOT EXISTS (\(Self.blockOf("?1")))
                ON CONFLICT (chat_id, sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
                """, chat, sender, text, clientID, now, position)
            stored = Later(result: Result {
                try id.value().map { id in (id, try recipient.map { try queuePushes(of: id, to: $0, due: pushDue).value() } ?? 0) }
            })
        case .postgres:
            // The chat's share lock comes before the id (see above).
            stored = connection.firstLater("""
                WITH inserted AS (
                    INSERT INTO messages (chat_id, sender_id, text, client_id, sent_at)
                    SELECT CAST(?1 AS BIGINT), ?2, ?3, ?4, ?5 FROM (SELECT count(*) FROM (SELECT id FROM chats WHERE id = ?1 FOR KEY SHARE) chat) locked
                    WHERE NOT EXISTS (\(Self.blockOf("CAST(?1 AS BIGINT)")))
                    ON CONFLICT (chat_id, sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING RETURNING id),
                queued AS (
                    INSERT INTO push_outbox (subscription_id, message_id, due_at)
                    SELECT s.id, i.id, CAST(?7 AS BIGINT) FROM push_subscriptions s, inserted i WHERE s.user_id = ?6 RETURNING 1)
                SELECT id, (SELECT count(*) FROM queued) FROM inserted
                """, chat, sender, text, clientID, now, recipient, pushDue) { (id: $0.int(0), pushes: $0.int(1)) }
        }
        return stored.then { stored in
            guard let stored else {
                // Nothing stored: a retry of a message stored before, or a chat one of them blocked.
                guard let earlier = try clientID.flatMap({ try message(chat: chat, sender: sender, clientID: $0) }) else {
                    throw StoreError.blocked
                }
                return (earlier, true, 0)
            }
            return (Message(id: stored.id, chatID: chat, senderID: sender, text: text, clientID: clientID, sentAt: now, isRead: false),
                    false, stored.pushes)
        }
    }

    /// A member of `chat` who blocked the other: while one did, no message is stored.
    private static func blockOf(_ chat: String) -> String {
        "SELECT 1 FROM chat_members WHERE chat_id = \(chat) AND blocked_at IS NOT NULL"
    }

    /// `user` blocks the other member of `chat`, or lifts their block; whether
    /// it changed. A block drops the chat's pushes not yet sent: a message
    /// written just before it is not pushed after it.
    public func setBlocked(_ blocked: Bool, chat: Int, by user: Int, at now: Int) throws -> Bool {
        if blocked {
            guard try connection.run("UPDATE chat_members SET blocked_at = ? WHERE chat_id = ? AND user_id = ? AND blocked_at IS NULL",
                                     now, chat, user) == 1 else { return false }
            try connection.run("DELETE FROM push_outbox WHERE message_id IN (SELECT id FROM messages WHERE chat_id = ?)", chat)
            return true
        }
        return try connection.run("UPDATE chat_members SET blocked_at = NULL WHERE chat_id = ? AND user_id = ? AND blocked_at IS NOT NULL",
                                  chat, user) == 1
    }

    /// Who of `chat`'s members has written in it and who blocked the other.
    public func relations(of chat: Int) throws -> ChatRelations {
        var relations = ChatRelations()
        _ = try connection.query("""
            SELECT cm.user_id, CASE WHEN cm.blocked_at IS NULL THEN 0 ELSE 1 END,
                   CASE WHEN EXISTS (SELECT 1 FROM messages m WHERE m.chat_id = cm.chat_id AND m.sender_id = cm.user_id) THEN 1 ELSE 0 END
            FROM chat_members cm WHERE cm.chat_id = ?
            """, chat) { row in
            if row.int(1) != 0 { relations.blocking.insert(row.int(0)) }
            if row.int(2) != 0 { relations.wrote.insert(row.int(0)) }
        }
        return relations
    }

    /// Moves `reader`'s cursor to the chat's newest message: every message the
    /// other side sent is read. Answers how many were unread, with the next
    /// round trip (see `Later`).
    public func markRead(chat: Int, reader: Int, at now: Int) -> Later<Int> {
        if connection.engine == .postgres {
            // Messages whose ids are drawn commit first; later ones wait for this commit.
            _ = connection.runLater(Self.lockForReadMark, chat)
        }
        let unread = connection.firstLater("""
            SELECT count(*) FROM messages m JOIN chat_members r ON r.chat_id = m.chat_id AND r.user_id = ?2
            WHERE m.chat_id = ?1 AND m.id > r.read_through AND m.sender_id <> ?2
            """, chat, reader) { $0.int(0) }
        let moved = connection.runLater("""
            UPDATE chat_members SET read_through = (SELECT coalesce(max(id), 0) FROM messages WHERE chat_id = ?1)
            WHERE chat_id = ?1 AND user_id = ?2
            """, chat, reader)
        return unread.then { count in
            _ = try moved.value()
            return count ?? 0
        }
    }

    // MARK: Reads

    public func chat(id: Int) throws -> Chat? {
        try connection.first("SELECT id, user_a, user_b, created_at FROM chats WHERE id = ?", id, row: Self.chat)
    }

    public func chat(between first: Int, and second: Int) throws -> Chat? {
        try connection.first("SELECT id, user_a, user_b, created_at FROM chats WHERE user_a = ? AND user_b = ?",
                             min(first, second), max(first, second), row: Self.chat)
    }

    /// The ids of a user's chats, at most `limit`.
    public func chatIDs(of user: Int, limit: Int = Int.max) throws -> [Int] {
        try connection.query("SELECT id FROM chats WHERE user_a = ?1 UNION ALL SELECT id FROM chats WHERE user_b = ?1 LIMIT ?2", user, limit) { $0.int(0) }
    }

    /// Each chat of `user` with the other member: whose screens and lists show
    /// `user`'s presence.
    public func chatContacts(of user: Int) throws -> [(chat: Int, contact: Int)] {
        try connection.query("SELECT id, user_b FROM chats WHERE user_a = ?1 UNION ALL SELECT id, user_a FROM chats WHERE user_b = ?1", user) {
            (chat: $0.int(0), contact: $0.int(1))
        }
    }

    /// The message `sender` sent earlier in `chat` with this client id, if any.
    public func message(chat: Int, sender: Int, clientID: String) throws -> Message? {
        try connection.first("""
            SELECT \(Self.messageColumns) FROM messages m \(Self.recipientCursor)
            WHERE m.chat_id = ? AND m.sender_id = ? AND m.client_id = ?
            """, chat, sender, clientID, row: Self.message)
    }

    /// A user's chats, most recent activity first (the last message's, else the
    /// chat's creation), each with its last message and the user's unread count.
    public func chatSummaries(of user: Int) throws -> [ChatSummary] {
        try connection.query("""
            SELECT c.id, c.created_at, u.id, u.name, u.last_seen_at,
                   m.id, m.sender_id, m.text, m.client_id, m.sent_at,
                   CASE WHEN m.id <= (CASE WHEN m.sender_id = ?1 THEN o.read_through ELSE me.read_through END) THEN 1 ELSE 0 END,
                   (SELECT count(*) FROM messages r WHERE r.chat_id = c.id AND r.id > me.read_through AND r.sender_id <> ?1),
                   u.show_presence, v.show_presence,
                   CASE WHEN me.blocked_at IS NULL THEN 0 ELSE 1 END, CASE WHEN o.blocked_at IS NULL THEN 0 ELSE 1 END,
                   CASE WHEN EXISTS (SELECT 1 FROM messages w WHERE w.chat_id = c.id AND w.sender_id = o.user_id) THEN 1 ELSE 0 END
            FROM chats c
            JOIN chat_members me ON me.chat_id = c.id AND me.user_id = ?1
            JOIN chat_members o ON o.chat_id = c.id AND o.user_id <> ?1
            JOIN users u ON u.id = o.user_id
            JOIN users v ON v.id = ?1
            LEFT JOIN messages m ON m.id = (SELECT max(id) FROM messages WHERE chat_id = c.id)
            WHERE c.user_a = ?1 OR c.user_b = ?1
            ORDER BY coalesce(m.sent_at, c.created_at) DESC, c.id DESC
            """, user) { row in
            let chatID = row.int(0)
            let last = row.optionalInt(5).map {
                Message(id: $0, chatID: chatID, senderID: row.int(6), text: row.text(7), clientID: row.optionalText(8),
                        sentAt: row.int(9), isRead: row.int(10) != 0)
            }
            let contact = User(id: row.int(2), name: row.text(3), lastSeenAt: row.optionalInt(4), showsPresence: row.int(12) != 0)
            let viewer = User(id: user, name: "", showsPresence: row.int(13) != 0)
            let relations = ChatRelations(wrote: row.int(16) != 0 ? [contact.id] : [],
                                          blocking: Set((row.int(14) != 0 ? [user] : []) + (row.int(15) != 0 ? [contact.id] : [])))
            return ChatSummary(chatID: chatID, contact: contact, createdAt: row.int(1), lastMessage: last, unreadCount: row.int(11),
                               showsContactPresence: relations.showsPresence(of: contact, to: viewer))
        }
    }

    /// The states of up to `limit` messages before `beforeID` (or the latest),
    /// oldest first, read from the `messages_page` index alone and the two
    /// members' cursors.
    public func messagePageOutline(chat: Int, before beforeID: Int?, limit: Int) throws -> MessagePageOutline {
        try messagePageOutline(chat: chat, before: beforeID, limit: limit, cursors: try readCursors(of: chat))
    }

    /// The same, with the chat's `cursors` read already.
    public func messagePageOutline(chat: Int, before beforeID: Int?, limit: Int, cursors: ReadCursors) throws -> MessagePageOutline {
        var newestFirst = try connection.query("""
            SELECT id, sender_id FROM messages WHERE chat_id = ? AND id < ? ORDER BY id DESC LIMIT ?
            """, chat, beforeID ?? Int.max, limit + 1) { row in
            let (id, sender) = (row.int(0), row.int(1))
            return MessageState(id: id, senderID: sender, isRead: id <= cursors.ofRecipient(whenSentBy: sender))
        }
        let hasEarlier = newestFirst.count > limit
        if hasEarlier { newestFirst.removeLast() }
        return MessagePageOutline(states: newestFirst.reversed(), hasEarlier: hasEarlier)
    }

    /// Both members' cursors of `chat` (none when it has no members).
    public func readCursors(of chat: Int) throws -> ReadCursors {
        var cursors = ReadCursors()
        _ = try connection.query("SELECT user_id, read_through FROM chat_members WHERE chat_id = ?", chat) { row in
            cursors.readThrough[row.int(0)] = row.int(1)
        }
        return cursors
    }

    public func message(id: Int) throws -> Message? {
        try connection.first("SELECT \(Self.messageColumns) FROM messages m \(Self.recipientCursor) WHERE m.id = ?", id, row: Self.message)
    }

    // Unread counts walk the messages after the reader's cursor in the
    // `messages_page` index, so they cost what came since the last read,
    // never the length of a chat.

    public func unreadCount(chat: Int, reader: Int) throws -> Int {
        try connection.first("""
            SELECT count(*) FROM chat_members r JOIN messages m ON m.chat_id = r.chat_id AND m.id > r.read_through
            WHERE r.chat_id = ?1 AND r.user_id = ?2 AND m.sender_id <> ?2
            """, chat, reader) { $0.int(0) } ?? 0
    }

    /// Unread messages over all of a user's chats.
    public func unreadTotal(of user: Int) throws -> Int {
        try connection.first("""
            SELECT count(*) FROM chat_members r JOIN messages m ON m.chat_id = r.chat_id AND m.id > r.read_through
            WHERE r.user_id = ?1 AND m.sender_id <> ?1
            """, user) { $0.int(0) } ?? 0
    }

    static func chat(_ row: any DatabaseRow) -> Chat {
        Chat(id: row.int(0), userA: row.int(1), userB: row.int(2), createdAt: row.int(3))
    }

    /// A message's columns, its read state from its recipient's cursor (`recipientCursor`).
    static let messageColumns = "m.id, m.chat_id, m.sender_id, m.text, m.client_id, m.sent_at, CASE WHEN m.id <= rc.read_through THEN 1 ELSE 0 END"
    /// The cursor of the member who did not send `m`.
    static let recipientCursor = "JOIN chat_members rc ON rc.chat_id = m.chat_id AND rc.user_id <> m.sender_id"

    static func message(_ row: any DatabaseRow) -> Message {
        Message(id: row.int(0), chatID: row.int(1), senderID: row.int(2), text: row.text(3), clientID: row.optionalText(4),
                sentAt: row.int(5), isRead: row.int(6) != 0)
    }
}
