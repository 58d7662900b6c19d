/// Many chats at once, for keeping a user's chats in memory (`KeptChat.read`):
/// one query for each kind of row, whatever the number of chats, the ids one
/// parameter (`Store+IDLists`).
extension Store {
    /// One member of a chat: their cursor, their unread messages, whether they
    /// blocked the other and whether they have written.
    public struct ChatMember: Sendable, Equatable {
        public let chatID: Int
        public let userID: Int
        public let readThrough: Int
        public let unread: Int
        public let blocked: Bool
        public let wrote: Bool
    }

    /// The chats of `ids` that exist, in no order.
    public func chats(ids: [Int]) throws -> [Chat] {
        guard !ids.isEmpty else { return [] }
        return try connection.query("SELECT id, user_a, user_b, created_at FROM chats WHERE id IN (\(idsQuery()))", binding: [idList(ids)],
                                    row: Self.chat)
    }

    /// The users of `ids` that exist, in no order.
    public func users(ids: [Int]) throws -> [User] {
        guard !ids.isEmpty else { return [] }
        return try connection.query("SELECT id, name, last_seen_at, show_presence FROM users WHERE id IN (\(idsQuery()))",
                                    binding: [idList(ids)]) {
            User(id: $0.int(0), name: $0.text(1), lastSeenAt: $0.optionalInt(2), showsPresence: $0.int(3) != 0)
        }
    }

    /// Every member of the chats of `ids`; the unread counts walk only what
    /// came after each cursor, as `unreadCount` does.
    public func members(ofChats ids: [Int]) throws -> [ChatMember] {
        guard !ids.isEmpty else { return [] }
        return try connection.query("""
            SELECT cm.chat_id, cm.user_id, cm.read_through,
                   (SELECT count(*) FROM messages m WHERE m.chat_id = cm.chat_id AND m.id > cm.read_through AND m.sender_id <> cm.user_id),
                   CASE WHEN cm.blocked_at IS NULL THEN 0 ELSE 1 END,
                   CASE WHEN EXISTS (SELECT 1 FROM messages m WHERE m.chat_id = cm.chat_id AND m.sender_id = cm.user_id) THEN 1 ELSE 0 END
            FROM chat_members cm WHERE cm.chat_id IN (\(idsQuery()))
            """, binding: [idList(ids)]) { row in
            ChatMember(chatID: row.int(0), userID: row.int(1), readThrough: row.int(2), unread: row.int(3), blocked: row.int(4) != 0,
                       wrote: row.int(5) != 0)
        }
    }

    /// The latest page of each chat of `ids`, as `messagePageOutline` gives
    /// one, read with each chat's `cursors`: one query for all of them, which
    /// finds each chat's page by its index (the id below which the page
    /// starts, then the messages from there), however long the chat. A chat
    /// with no messages has an empty page.
    public func latestPages(ofChats ids: [Int], limit: Int, cursors: [Int: ReadCursors]) throws -> [Int: MessagePageOutline] {
        guard !ids.isEmpty else { return [:] }
        var newestFirst: [Int: [MessageState]] = [:]
        _ = try connection.query("""
            WITH wanted(id) AS (\(idsQuery())),
                 start(chat_id, below) AS (
                     SELECT wanted.id, COALESCE((SELECT m.id FROM messages m WHERE m.chat_id = wanted.id
                                                 ORDER BY m.id DESC LIMIT 1 OFFSET ?), 0)
                     FROM wanted)
            SELECT m.chat_id, m.id, m.sender_id FROM start JOIN messages m ON m.chat_id = start.chat_id AND m.id > start.below
            """, binding: [idList(ids), limit + 1]) { row in
            let (chat, id, sender) = (row.int(0), row.int(1), row.int(2))
            let cursors = cursors[chat] ?? ReadCursors()
            newestFirst[chat, default: []].append(MessageState(id: id, senderID: sender, isRead: id <= cursors.ofRecipient(whenSentBy: sender)))
        }
        var pages: [Int: MessagePageOutline] = [:]
        for chat in ids {
            var states = (newestFirst[chat] ?? []).sorted { $0.id > $1.id }
            let hasEarlier = states.count > limit
            if hasEarlier { states.removeLast(states.count - limit) }
            pages[chat] = MessagePageOutline(states: states.reversed(), hasEarlier: hasEarlier)
        }
        return pages
    }

    /// The messages of `ids`, with their read state, in no order.
    public func messages(ids: [Int]) throws -> [Message] {
        guard !ids.isEmpty else { return [] }
        return try connection.query("SELECT \(Self.messageColumns) FROM messages m \(Self.recipientCursor) WHERE m.id IN (\(idsQuery()))",
                                    binding: [idList(ids)], row: Self.message)
    }

}
