extension Store {
    /// On SQLite: the notifications of the latest `count` messages whose
    /// commits took a feed position at or before `position`, oldest first,
    /// each made by `notification` from the message's position, its
    /// recipient, its chat, its sender's name and its text. One server writes
    /// the file, so message ids and positions grow together, and the newest
    /// messages are the newest positions.
    public func recentNotifications<Notification>(
        through position: Int, count: Int,
        _ notification: (_ position: Int, _ recipient: Int, _ chatID: Int, _ contact: String, _ text: String) -> Notification
    ) throws -> [Notification] {
        try connection.query("""
            SELECT m.position, CASE WHEN c.user_a = m.sender_id THEN c.user_b ELSE c.user_a END, m.chat_id, u.name, m.text
            FROM (SELECT id, position, chat_id, sender_id, text FROM messages
                  WHERE position IS NOT NULL AND position <= ?1 ORDER BY id DESC LIMIT ?2) m
            JOIN chats c ON c.id = m.chat_id
            JOIN users u ON u.id = m.sender_id
            ORDER BY m.id
            """, position, count) { notification($0.int(0), $0.int(1), $0.int(2), $0.text(3), $0.text(4)) }
    }
}
