import TailorStore

/// Works out, for each committed change, which users' view models it touched, and
/// tells those who care: the view cache drops them, the chatbot hears messages
/// sent to it. Runs on the writer, right after the commit.
final class EventHandler: Sendable {
    private let cache: ViewCache
    private let listeners: [@Sendable (Set<TopicChange>) -> Void]
    private let messageListener: @Sendable (Message, Chat) -> Void

    init(cache: ViewCache, onMessage: @escaping @Sendable (Message, Chat) -> Void,
         listeners: [@Sendable (Set<TopicChange>) -> Void] = []) {
        self.cache = cache
        self.messageListener = onMessage
        self.listeners = listeners
    }

    func committed(_ outcomes: [EventOutcome], store: Store) {
        var changes = Set<TopicChange>()
        for outcome in outcomes {
            changes.formUnion(Self.changes(for: outcome, store: store))
            if case .messageSent(let message, false) = outcome, let chat = try? store.chat(id: message.chatID) {
                messageListener(message, chat)
            }
        }
        guard !changes.isEmpty else { return }
        cache.apply(changes)
        for listener in listeners { listener(changes) }
    }

    /// The topics one outcome touched.
    static func changes(for outcome: EventOutcome, store: Store) -> [TopicChange] {
        switch outcome {
        case .signedUp:
            return []
        case .chatOpened(let chat, _, let created):
            return created ? [.chats(user: chat.userA), .chats(user: chat.userB)] : []
        case .messageSent(let message, let duplicate):
            guard !duplicate, let chat = try? store.chat(id: message.chatID) else { return [] }
            let recipient = chat.contact(of: message.senderID)
            // Both lists reorder and show the new last message; the recipient's
            // unread count and badge grow.
            return [.chats(user: chat.userA), .chats(user: chat.userB),
                    .chat(user: chat.userA, id: chat.id), .chat(user: chat.userB, id: chat.id),
                    .badge(user: recipient)]
        case .messagesRead(let chat, let reader, let count):
            guard count > 0 else { return [] }
            // The reader's counts drop; the sender sees read ticks.
            return [.chats(user: reader), .badge(user: reader),
                    .chat(user: chat.userA, id: chat.id), .chat(user: chat.userB, id: chat.id)]
        case .orderChanged(let order):
            return [.orders(user: order.userID), .order(user: order.userID, id: order.id)]
        case .orderDeleted(let user, let order):
            return [.orders(user: user), .order(user: user, id: order)]
        }
    }
}
