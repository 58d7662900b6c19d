/// A message of a chat. Times are milliseconds since 1970 (UTC).
public struct Message: Sendable, Equatable {
    public let id: Int
    public let chatID: Int
    public let senderID: Int
    public let text: String
    public let clientID: String?
    public let sentAt: Int
    /// Whether the chat's other member has read it: it lies at or before
    /// that member's read cursor (see `Store.markRead`).
    public let isRead: Bool

    public init(id: Int, chatID: Int, senderID: Int, text: String, clientID: String?, sentAt: Int, isRead: Bool) {
        self.id = id
        self.chatID = chatID
        self.senderID = senderID
        self.text = text
        self.clientID = clientID
        self.sentAt = sentAt
        self.isRead = isRead
    }
}
