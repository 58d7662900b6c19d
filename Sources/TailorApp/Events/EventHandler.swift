import Dispatch
import Synchronization
import TailorStore

/// Works out, for each committed change, which users' view models it touched, and
/// tells those who care: the view cache drops them, the event streams get their
/// new versions and the notifications, the chatbot hears messages sent to it.
/// Runs on the writer, right after the commit.
///
/// The cache is told at once, before the writer answers, so that a client that
/// reads after its write sees it. The streams' new view models are built on a
/// queue of their own, so the writer goes on committing meanwhile. Changes that
/// arrive while the queue is busy wait together, and the next pass builds each
/// touched view model once for all of them: under load, a chat that got ten
/// messages is built once, not ten times. Each event is a whole view model, so
/// nothing is lost by that.
final class EventHandler: Sendable {
    private let cache: ViewCache
    private let onMessage: @Sendable (Message, Chat) -> Void
    private let streams = Mutex<EventStreams?>(nil)
    private let publisher = DispatchQueue(label: "tailor.publisher")
    private let unpublished = Mutex(Unpublished())

    private struct Unpublished {
        var changes = Set<TopicChange>()
        var notifications: [EventStreams.Notification] = []
        var passScheduled = false
    }

    init(cache: ViewCache, onMessage: @escaping @Sendable (Message, Chat) -> Void) {
        self.cache = cache
        self.onMessage = onMessage
    }

    /// Connects the streams (made after the router that owns this handler).
    func attach(_ streams: EventStreams) {
        self.streams.withLock { $0 = streams }
    }

    func committed(_ outcomes: [EventOutcome], store: Store) {
        var changes = Set<TopicChange>()
        var notifications: [EventStreams.Notification] = []
        for outcome in outcomes {
            changes.formUnion(Self.changes(for: outcome))
            if case .messageSent(let message, let chat, false) = outcome {
                if let sender = try? store.user(id: message.senderID) {
                    notifications.append(.init(recipient: chat.contact(of: message.senderID), chatID: chat.id, contact: sender.name, text: message.text))
                }
                onMessage(message, chat)
            }
        }
        guard !changes.isEmpty || !notifications.isEmpty else { return }
        cache.apply(changes)
        guard let streams = streams.withLock({ $0 }) else { return }
        let schedule = unpublished.withLock { waiting in
            waiting.changes.formUnion(changes)
            waiting.notifications += notifications
            defer { waiting.passScheduled = true }
            return !waiting.passScheduled
        }
        if schedule { publisher.async { self.publishWaiting(to: streams) } }
    }

    /// Publishes what waits, until nothing does.
    private func publishWaiting(to streams: EventStreams) {
        while true {
            let waiting = unpublished.withLock { waiting -> Unpublished? in
                guard !waiting.changes.isEmpty || !waiting.notifications.isEmpty else {
                    waiting.passScheduled = false
                    return nil
                }
                defer { waiting = Unpublished(passScheduled: true) }
                return waiting
            }
            guard let waiting else { return }
            streams.publish(waiting.changes, notifications: waiting.notifications)
        }
    }

    /// The topics one outcome touched.
    static func changes(for outcome: EventOutcome) -> [TopicChange] {
        switch outcome {
        case .signedUp:
            return []
        case .chatOpened(let chat, _, let created):
            return created ? [.chats(user: chat.userA), .chats(user: chat.userB)] : []
        case .messageSent(let message, let chat, let duplicate):
            guard !duplicate else { return [] }
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
