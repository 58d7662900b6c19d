extension Store {
    // MARK: Writes

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
            return (Chat(id: id, userA: a, userB: b, createdAt: now), true)
        }
        return (try expectRow(try chat(between: a, and: b)), false)
    }

    /// Stores a message, unless its sender sent one with the same client id in
    /// this chat before: then nothing is stored and that earlier message comes
    /// back as a `duplicate`. A retry that two servers get at once is stored once.
    /// The answer comes with the next round trip (see `Later`): a batch sends
    /// all its messages at once.
    public func insertMessage(chat: Int, sender: Int, text: String, clientID: String?, at now: Int) -> Later<(message: Message, duplicate: Bool)> {
        connection.firstLater("""
            INSERT INTO messages (chat_id, sender_id, text, client_id, sent_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (chat_id, sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING RETURNING id
            """, chat, sender, text, clientID, now) { $0.int(0) }
        .then { id in
            guard let id else {
                return (try expectRow(try clientID.flatMap { try message(chat: chat, sender: sender, clientID: $0) }), true)
            }
            return (Message(id: id, chatID: chat, senderID: sender, text: text, clientID: clientID, sentAt: now, readAt: nil), false)
        }
    }

    /// Marks every unread message the other side sent as read; answers how
    /// many, with the next round trip (see `Later`).
    public func markRead(chat: Int, reader: Int, at now: Int) -> Later<Int> {
        connection.runLater("UPDATE messages INDEXED BY messages_unread SET read_at = ? WHERE chat_id = ? AND sender_id <> ? AND read_at IS NULL",
                            now, chat, reader)
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

    /// The message `sender` sent earlier in `chat` with this client id, if any.
    public func message(chat: Int, sender: Int, clientID: String) throws -> Message? {
        try connection.first("""
            SELECT id, chat_id, sender_id, text, client_id, sent_at, read_at FROM messages
            WHERE chat_id = ? AND sender_id = ? AND client_id = ?
            """, chat, sender, clientID, row: Self.message)
    }

    /// A user's chats, most recent activity first (the last message's, else the
    /// chat's creation), each with its last message and the user's unread count.
    public func chatSummaries(of user: Int) throws -> [ChatSummary] {
        try connection.query("""
            SELECT c.id, c.created_at, u.id, u.name,
                   m.id, m.sender_id, m.text, m.client_id, m.sent_at, m.read_at,
                   (SELECT count(*) FROM messages r INDEXED BY messages_unread WHERE r.chat_id = c.id AND r.sender_id <> ?1 AND r.read_at IS NULL)
            FROM chats c
            JOIN users u ON u.id = CASE WHEN c.user_a = ?1 THEN c.user_b ELSE c.user_a END
            LEFT JOIN messages m ON m.id = (SELECT max(id) FROM messages WHERE chat_id = c.id)
            WHERE c.user_a = ?1 OR c.user_b = ?1
            ORDER BY coalesce(m.sent_at, c.created_at) DESC, c.id DESC
            """, user) { row in
            let chatID = row.int(0)
            let last = row.optionalInt(4).map {
                Message(id: $0, chatID: chatID, senderID: row.int(5), text: row.text(6), clientID: row.optionalText(7),
                        sentAt: row.int(8), readAt: row.optionalInt(9))
            }
            return ChatSummary(chatID: chatID, contact: User(id: row.int(2), name: row.text(3)), createdAt: row.int(1),
                               lastMessage: last, unreadCount: row.int(10))
        }
    }

    /// The states of up to `limit` messages before `beforeID` (or the latest),
    /// oldest first, read from the `messages_page` index alone.
    public func messagePageOutline(chat: Int, before beforeID: Int?, limit: Int) throws -> MessagePageOutline {
        var newestFirst = try connection.query("""
            SELECT id, sender_id, CASE WHEN read_at IS NULL THEN 0 ELSE 1 END FROM messages
            WHERE chat_id = ? AND id < ? ORDER BY id DESC LIMIT ?
            """, chat, beforeID ?? Int.max, limit + 1) { row in
            MessageState(id: row.int(0), senderID: row.int(1), isRead: row.int(2) != 0)
        }
        let hasEarlier = newestFirst.count > limit
        if hasEarlier { newestFirst.removeLast() }
        return MessagePageOutline(states: newestFirst.reversed(), hasEarlier: hasEarlier)
    }

    public func message(id: Int) throws -> Message? {
        try connection.first("SELECT id, chat_id, sender_id, text, client_id, sent_at, read_at FROM messages WHERE id = ?",
                             id, row: Self.message)
    }

    // Unread counts walk the unread messages' index alone (`messages_unread`),
    // so they cost what is unread, never the length of a chat.

    public func unreadCount(chat: Int, reader: Int) throws -> Int {
        try connection.first("SELECT count(*) FROM messages INDEXED BY messages_unread WHERE chat_id = ? AND sender_id <> ? AND read_at IS NULL", chat, reader) { $0.int(0) } ?? 0
    }

    /// Unread messages over all of a user's chats.
    public func unreadTotal(of user: Int) throws -> Int {
        try connection.first("""
            SELECT count(*) FROM messages m INDEXED BY messages_unread JOIN chats c ON c.id = m.chat_id
            WHERE (c.user_a = ?1 OR c.user_b = ?1) AND m.sender_id <> ?1 AND m.read_at IS NULL
            """, user) { $0.int(0) } ?? 0
    }

    static func chat(_ row: any DatabaseRow) -> Chat {
        Chat(id: row.int(0), userA: row.int(1), userB: row.int(2), createdAt: row.int(3))
    }

    static func message(_ row: any DatabaseRow) -> Message {
        Message(id: row.int(0), chatID: row.int(1), senderID: row.int(2), text: row.text(3), clientID: row.optionalText(4),
                sentAt: row.int(5), readAt: row.optionalInt(6))
    }
}
