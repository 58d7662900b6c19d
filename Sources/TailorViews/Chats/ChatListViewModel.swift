/// The chat list screen (topic `chats`); its items as view models, or as the
/// rows a server writes them from (`ChatListRowList`): the same JSON.
package struct ChatListViewModel<Items: JSONWritable & Equatable & Sendable>: JSONWritable, Equatable, Sendable {
    package struct Actions: JSONWritable, Equatable, Sendable {
        package let addChat: ActionViewModel

        package func write(to json: inout JSONWriter) {
            json.object { $0.field("addChat", addChat) }
        }
    }

    package let title: String
    package let unreadTotal: Int
    package let items: Items
    /// The page after this one, or null.
    package let next: ActionViewModel?
    package let actions: Actions

    /// The rows and a little more: a list of a hundred rows is grown once, not eight times.
    package var estimatedJSONSize: Int { items.estimatedJSONSize + 512 }

    package func write(to json: inout JSONWriter) {
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
package struct ChatListItemViewModel: JSONWritable, Equatable, Sendable {
    package let id: String
    package let contact: String
    /// Null while the contact's presence is not shown (`ChatRelations.showsPresence`).
    package let contactStatus: ContactStatusViewModel?
    package let message: String
    package let lastMessageDate: String
    package let lastMessageAt: String?
    package let unreadMessageCount: Int
    package let open: ActionViewModel

    /// A missing last message is `null`, not left out.
    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("contact", contact)
            $0.field("contactStatus", contactStatus)
            $0.field("id", id)
            $0.field("lastMessageAt", lastMessageAt)
            $0.field("lastMessageDate", lastMessageDate)
            $0.field("message", message)
            $0.field("open", open)
            $0.field("unreadMessageCount", unreadMessageCount)
        }
    }
}
