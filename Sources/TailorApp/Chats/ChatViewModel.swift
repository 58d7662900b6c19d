/// One chat's screen (topic `chat:ID`): its messages oldest first.
struct ChatViewModel: Encodable, Equatable, Sendable {
    struct Actions: Encodable, Equatable, Sendable {
        let send: ActionViewModel
        let markRead: ActionViewModel
    }

    let id: String
    let title: String
    let unreadMessageCount: Int
    let messages: [MessageViewModel]
    /// The page before this one, or null.
    let earlier: ActionViewModel?
    let actions: Actions

    enum CodingKeys: String, CodingKey {
        case id, title, unreadMessageCount, messages, earlier, actions
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(unreadMessageCount, forKey: .unreadMessageCount)
        try container.encode(messages, forKey: .messages)
        try container.encode(earlier, forKey: .earlier)
        try container.encode(actions, forKey: .actions)
    }
}

/// A message as its reader sees it: `sender` is `me` or `other`.
struct MessageViewModel: Encodable, Equatable, Sendable {
    let id: String
    let text: String
    let sender: String
    let senderName: String
    /// `sent` or `read`; clients use `sending` and `failed` for their own copies.
    let state: String
    let time: String
    let sentAt: String
}

/// The total of unread messages (topic `badge`).
struct BadgeViewModel: Encodable, Equatable, Sendable {
    let unread: Int
}
