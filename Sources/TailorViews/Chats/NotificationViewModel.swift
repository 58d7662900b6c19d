/// The in-app banner for a message in a chat the stream does not show.
package struct NotificationViewModel: JSONWritable, Sendable {
    package let chatId: String
    package let contact: String
    package let text: String
    package let open: ActionViewModel

    package init(chatID: Int, contact: String, text: String) {
        chatId = String(chatID)
        self.contact = contact
        // A banner shows a preview, as the chat list does: a notification is
        // queued for every stream of the recipient, read or not.
        self.text = ChatListViewModelBuilder.preview(text)
        open = .get("/api/chats/\(chatID)")
    }

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("chatId", chatId)
            $0.field("contact", contact)
            $0.field("open", open)
            $0.field("text", text)
        }
    }
}
