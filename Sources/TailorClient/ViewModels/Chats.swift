/// The chat list (topic `chats`): newest conversation first.
public struct ChatList: Codable, Sendable, Equatable {
    public let title: String
    public let unreadTotal: Int
    public let items: [ChatListItem]
    /// The page after this one, or nil.
    public let next: Action?
    public let actions: Actions

    public struct Actions: Codable, Sendable, Equatable {
        public let addChat: Action
    }
}

public struct ChatListItem: Codable, Sendable, Equatable, Identifiable {
    public let id: String
    public let contact: String
    /// Nil until the contact has written in the chat, or while presence is hidden.
    public let contactStatus: ContactStatus?
    /// The last message's text, "" when there is none.
    public let message: String
    public let lastMessageDate: String
    public let lastMessageAt: String?
    public let unreadMessageCount: Int
    public let open: Action
}

/// What a chat shows of its contact: `state` to style by, `text` to show.
public struct ContactStatus: Codable, Sendable, Equatable {
    /// "typing", "online" or "away".
    public let state: String
    /// "typing…", "online", "last seen 14:05"; nil for a contact never seen.
    public let text: String?
}

/// One chat's screen (topic `chat:ID`): its latest messages, oldest first.
public struct ChatScreen: Codable, Sendable, Equatable, Identifiable {
    public let id: String
    public let title: String
    public let contactStatus: ContactStatus?
    public let blocked: Bool
    public let unreadMessageCount: Int
    public let messages: [Message]
    /// The page of messages before these, or nil.
    public let earlier: Action?
    public let actions: Actions

    public struct Actions: Codable, Sendable, Equatable {
        public let send: Action
        public let markRead: Action
        public let typing: Action
        public let block: Action?
        public let unblock: Action?
    }
}

public struct Message: Codable, Sendable, Equatable, Identifiable {
    public let id: String
    public let text: String
    /// "me" or "other".
    public let sender: String
    public let senderName: String
    /// "sent" or "read".
    public let state: String
    public let time: String
    public let sentAt: String
}

/// The unread total over all chats (topic `badge`).
public struct Badge: Codable, Sendable, Equatable {
    public let unread: Int
}

/// A message in a chat no stream of the user shows.
public struct ChatNotification: Codable, Sendable, Equatable {
    public let chatId: String
    public let contact: String
    public let text: String
    public let open: Action
}

/// The signed-in user.
public struct User: Codable, Sendable, Equatable, Identifiable {
    public let id: String
    public let name: String
}
