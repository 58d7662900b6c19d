/// A message's notification as the database gives it back: the feed position
/// of the commit that stored it, who it is for, and what it says.
public struct StoredNotification: Sendable, Equatable {
    public let position: Int
    public let recipient: Int
    public let chatID: Int
    /// The sender's name.
    public let contact: String
    public let text: String

    public init(position: Int, recipient: Int, chatID: Int, contact: String, text: String) {
        self.position = position
        self.recipient = recipient
        self.chatID = chatID
        self.contact = contact
        self.text = text
    }
}

extension Store {
    /// On SQLite: the notifications of the latest `count` messages whose
    /// commits took a feed position at or before `position`, oldest first.
    /// One server writes the file, so message ids and positions grow
    /// together, and the newest messages are the newest positions.
    public func recentNotifications(through position: Int, count: Int) throws -> [StoredNotification] {
        try connection.query("""
            SELECT m.position, CASE WHEN c.user_a = m.sender_id THEN c.user_b ELSE c.user_a END, m.chat_id, u.name, m.text
            FROM (SELECT id, position, chat_id, sender_id, text FROM messages
                  WHERE position IS NOT NULL AND position <= ?1 ORDER BY id DESC LIMIT ?2) m
            JOIN chats c ON c.id = m.chat_id
            JOIN users u ON u.id = m.sender_id
            ORDER BY m.id
            """, position, count) {
            StoredNotification(position: $0.int(0), recipient: $0.int(1), chatID: $0.int(2), contact: $0.text(3), text: $0.text(4))
        }
    }
}
