/// The in-app banner for a message in a chat the stream does not show.
struct NotificationViewModel: JSONWritable, Sendable {
    let chatId: String
    let contact: String
    let text: String
    let open: ActionViewModel

    init(_ notification: EventStreams.Notification) {
        chatId = String(notification.chatID)
        contact = notification.contact
        // A banner shows a preview, as the chat list does: a notification is
        // queued for every stream of the recipient, read or not.
        text = ChatListViewModelBuilder.preview(notification.text)
        open = .get("/api/chats/\(notification.chatID)")
    }

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("chatId", chatId)
            $0.field("contact", contact)
            $0.field("open", open)
            $0.field("text", text)
        }
    }
}
