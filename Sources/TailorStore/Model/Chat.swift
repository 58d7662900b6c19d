/// A conversation between two users; one per pair.
public struct Chat: Sendable, Equatable {
    public let id: Int
    public let userA: Int
    public let userB: Int
    public let createdAt: Int

    public init(id: Int, userA: Int, userB: Int, createdAt: Int) {
        self.id = id
        self.userA = userA
        self.userB = userB
        self.createdAt = createdAt
    }

    public func includes(_ user: Int) -> Bool { user == userA || user == userB }

    /// The other participant, seen from `user`.
    public func contact(of user: Int) -> Int { user == userA ? userB : userA }
}

/// A chat as one line of a user's chat list.
public struct ChatSummary: Sendable, Equatable {
    public let chatID: Int
    public let contact: User
    public let createdAt: Int
    public let lastMessage: Message?
    public let unreadCount: Int

    public init(chatID: Int, contact: User, createdAt: Int, lastMessage: Message?, unreadCount: Int) {
        self.chatID = chatID
        self.contact = contact
        self.createdAt = createdAt
        self.lastMessage = lastMessage
        self.unreadCount = unreadCount
    }
}

/// A chat's messages as one page, oldest first.
public struct MessagePage: Sendable, Equatable {
    public let messages: [Message]
    /// Whether older messages exist before the first one.
    public let hasEarlier: Bool

    public init(messages: [Message], hasEarlier: Bool) {
        self.messages = messages
        self.hasEarlier = hasEarlier
    }
}
