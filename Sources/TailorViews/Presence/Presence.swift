import Synchronization
import TailorStore

/// Who is online and who is typing, as this server's views show it: the one
/// `PresenceTracker`, behind a lock, which the builders read and the server's
/// presence driver changes.
package final class Presence: Sendable {
    private let tracker: Mutex<PresenceTracker>

    package init(_ tracker: PresenceTracker) {
        self.tracker = Mutex(tracker)
    }

    /// Changes the tracker; returns what the change calls for.
    package func change<Result>(_ body: (inout PresenceTracker) -> Result) -> Result {
        tracker.withLock { body(&$0) }
    }

    /// What `viewer`'s screens show of their contact in `chat`: nothing
    /// unless `shown` (`ChatRelations.showsPresence`, which shows the chatbot
    /// unless it is blocked).
    package func status(of contact: User, in chat: Int, shown: Bool, dates: DateText, now: Int) -> ContactStatusViewModel? {
        guard shown else { return nil }
        let (typing, online) = tracker.withLock { ($0.isTyping(contact.id, in: chat), $0.isShownOnline(contact.id)) }
        if typing { return .typing }
        if online { return .online }
        return ContactStatusViewModel(away: contact.lastSeenAt.map { dates.lastSeen($0, now: now) })
    }
}
