/// The chat list screen (topic `chats`).
struct ChatListViewModel: Encodable, Equatable, Sendable {
    struct Actions: Encodable, Equatable, Sendable {
        let addChat: ActionViewModel
    }

    let title: String
    let unreadTotal: Int
    let items: [ChatListItemViewModel]
    let actions: Actions
}

/// One chat in the list.
struct ChatListItemViewModel: Encodable, Equatable, Sendable {
    let id: String
    let contact: String
    let message: String
    let lastMessageDate: String
    let lastMessageAt: String?
    let unreadMessageCount: Int
    let open: ActionViewModel

    enum CodingKeys: String, CodingKey {
        case id, contact, message, lastMessageDate, lastMessageAt, unreadMessageCount, open
    }

    // Written by hand so that a missing last message is `null`, not left out.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(contact, forKey: .contact)
        try container.encode(message, forKey: .message)
        try container.encode(lastMessageDate, forKey: .lastMessageDate)
        try container.encode(lastMessageAt, forKey: .lastMessageAt)
        try container.encode(unreadMessageCount, forKey: .unreadMessageCount)
        try container.encode(open, forKey: .open)
    }
}
