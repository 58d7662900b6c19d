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

/// What stands between a chat's two members: who of them has written in it,
/// and who blocked the other. Presence is shown only between people who talk
/// (see `showsPresence`).
public struct ChatRelations: Sendable, Equatable {
    /// Members who have sent a message in the chat.
    public var wrote: Set<Int>
    /// Members who blocked the other.
    public var blocking: Set<Int>

    public init(wrote: Set<Int> = [], blocking: Set<Int> = []) {
        self.wrote = wrote
        self.blocking = blocking
    }

    /// Whether `viewer` is shown `contact`'s presence (online, typing, last
    /// seen): once the contact has written in the chat, while neither blocked
    /// the other, and while both let their presence be seen: whoever hides
    /// theirs sees no one's, as messaging apps do. The chatbot, no person,
    /// is shown always, but while a block stands.
    public func showsPresence(of contact: User, to viewer: User) -> Bool {
        guard blocking.isEmpty else { return false }
        return contact.name == User.botName || (wrote.contains(contact.id) && contact.showsPresence && viewer.showsPresence)
    }
}

/// A chat as one line of a user's chat list.
public struct ChatSummary: Sendable, Equatable {
    public let chatID: Int
    public let contact: User
    public let createdAt: Int
    public let lastMessage: Message?
    public let unreadCount: Int
    /// Whether the list's user is shown the contact's presence (`ChatRelations.showsPresence`).
    public let showsContactPresence: Bool

    public init(chatID: Int, contact: User, createdAt: Int, lastMessage: Message?, unreadCount: Int, showsContactPresence: Bool = true) {
        self.chatID = chatID
        self.contact = contact
        self.createdAt = createdAt
        self.lastMessage = lastMessage
        self.unreadCount = unreadCount
        self.showsContactPresence = showsContactPresence
    }
}

/// Where a message stands, without its text: enough to tell whether a kept
/// copy of its JSON is still current.
public struct MessageState: Sendable, Equatable {
    public let id: Int
    public let senderID: Int
    public let isRead: Bool

    public init(id: Int, senderID: Int, isRead: Bool) {
        self.id = id
        self.senderID = senderID
        self.isRead = isRead
    }

    public init(_ message: Message) {
        self.init(id: message.id, senderID: message.senderID, isRead: message.isRead)
    }
}

/// A page of a chat's messages, oldest first, by their states; whole messages
/// are read by id where they are needed.
public struct MessagePageOutline: Sendable, Equatable {
    public let states: [MessageState]
    /// Whether older messages exist before the first one.
    public let hasEarlier: Bool

    public init(states: [MessageState], hasEarlier: Bool) {
        self.states = states
        self.hasEarlier = hasEarlier
    }
}

/// The read cursors of one chat's members: the id of the last message each
/// has read.
public struct ReadCursors: Sendable, Equatable {
    public var readThrough: [Int: Int] = [:]

    public init() {}

    /// The cursor that decides whether a message `sender` sent is read: the
    /// other member's.
    public func ofRecipient(whenSentBy sender: Int) -> Int {
        readThrough.first { $0.key != sender }?.value ?? 0
    }
}
