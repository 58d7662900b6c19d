/// The chat list screen (topic `chats`).
struct ChatListViewModel: JSONWritable, Equatable, Sendable {
    struct Actions: JSONWritable, Equatable, Sendable {
        let addChat: ActionViewModel

        func write(to json: inout JSONWriter) {
            json.object { $0.field("addChat", addChat) }
        }
    }

    let title: String
    let unreadTotal: Int
    let items: [ChatListItemViewModel]
    /// The page after this one, or null.
    let next: ActionViewModel?
    let actions: Actions

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("actions", actions)
            $0.field("items", items)
            $0.field("next", next)
            $0.field("title", title)
            $0.field("unreadTotal", unreadTotal)
        }
    }
}

/// One chat in the list.
struct ChatListItemViewModel: JSONWritable, Equatable, Sendable {
    let id: String
    let contact: String
    let message: String
    let lastMessageDate: String
    let lastMessageAt: String?
    let unreadMessageCount: Int
    let open: ActionViewModel

    /// A missing last message is `null`, not left out.
    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("contact", contact)
            $0.field("id", id)
            $0.field("lastMessageAt", lastMessageAt)
            $0.field("lastMessageDate", lastMessageDate)
            $0.field("message", message)
            $0.field("open", open)
            $0.field("unreadMessageCount", unreadMessageCount)
        }
    }
}
