import Logging
import TailorDomain
import TailorFeed
import TailorHTTP
import TailorLoop
import TailorPresence
import TailorStore
import TailorStreams
import TailorViews

/// Works out, for each entry of the change feed, which users' view models it
/// touched, and tells those who care: the kept chats follow it, the view cache
/// drops them, the event streams get their new versions and the notifications,
/// the chatbot hears messages sent to it and the push delivery the pushes
/// queued (`FeedNews`), an ended session's token stops signing in. Runs on the thread that applies the feed (`FeedApplier`), one
/// entry at a time in position order, while the writer commits the next batch.
///
/// The cache is told at once, before the writer's sources are answered, so
/// that a client that reads after its write sees it. The streams' new view
/// models are built on the lanes, so the feed goes on meanwhile. Changes that
/// arrive while a lane is busy wait together, and its next pass builds each
/// touched view model once for all of them: under load, a chat that got ten
/// messages is built once, not ten times. Each event is a whole view model, so
/// nothing is lost by that.
///
/// A user's changes always go to the same lane (`EventStreams.lane(of:)`), so one view
/// model is built by one lane, in feed order, and a stream's ids never go back,
/// while the lanes build different users' view models side by side, none
/// waiting for another's pass to end.
final class EventHandler: FeedHandler {
    private let cache: ViewCache
    private let directory: ChatDirectory
    private let credentials: CredentialCache
    private let news: FeedNews
    private let presence: PresenceDriver
    private let streams: EventStreams
    /// Senders' names read for notifications: touched only on the feed's
    /// thread, which applies the feed in order, so they need no lock.
    private let names = ThreadConfined([Int: String]())
    /// Reads that failed while the feed was followed: each costs a little
    /// (a chat not kept, a notification not sent), and none stops the feed,
    /// but each is said.
    private let failures: ThrottledLog

    init(cache: ViewCache, directory: ChatDirectory, credentials: CredentialCache, streams: EventStreams, presence: PresenceDriver,
         news: FeedNews, logger: Logger) {
        failures = ThrottledLog(logger: logger)
        self.cache = cache
        self.directory = directory
        self.credentials = credentials
        self.streams = streams
        self.presence = presence
        self.news = news
    }

    /// Follows one entry of the feed, in position order. `snapshot` shows the
    /// feed up to the entry's own position, or a later one when other
    /// servers write too.
    func committed(_ entry: FeedEntry, snapshot: FeedSnapshot) {
        // Before the cache forgets: a view built after that reads the kept chats as they are now.
        if let failure = directory.committed(entry.changes, at: entry.position, snapshot: snapshot, keeping: streams.served.serves) {
            failures.log("chats touched at feed position \(entry.position) were not kept, their views are read from the database: \(failure)")
        }
        // A message touches five topics: room for them all, so the set is not grown while filled.
        var changes = Set<TopicChange>(minimumCapacity: entry.changes.count * 5)
        var notifications: [EventStreams.Notification] = []
        for change in entry.changes {
            Self.addTopics(touchedBy: change, to: &changes)
            switch change {
            case .messageSent(let message, let chat):
                presence.messageSent(in: chat.id, by: message.senderID)
                if let sender = name(of: message.senderID, in: snapshot) {
                    notifications.append(.init(recipient: chat.contact(of: message.senderID), chatID: chat.id, contact: sender,
                                               text: message.text, position: Int64(entry.position)))
                }
                news.sent(message, in: chat)
            case .sessionEnded(let hash):
                credentials.forget(storedHash: hash)
                streams.endStreams(ofSession: hash)
            case .pushesQueued(let message, let chat, let recipient):
                news.queued(.init(message: message, chat: chat.id, recipient: recipient))
            case .lastSeen(let user, _):
                // After the kept chats took the time: the contacts' views are built with it.
                presence.lastSeenCommitted(of: user) { [self] in contacts(of: $0, in: snapshot) }
            case .privacyChanged(let user, _):
                presence.visibilityChanged(of: user) { [self] in contacts(of: $0, in: snapshot) }
            case .accountDisabled(let user):
                credentials.forget(user: user)
                streams.endStreams(ofUser: user)
                presence.confirmApplied(entry.position)
            default:
                break
            }
        }
        guard !changes.isEmpty || !notifications.isEmpty else { return }
        // The dropped versions are freed by a lane after its pass, not on this
        // thread, which every commit waits for: freeing large versions is slow.
        let dropped = cache.apply(changes)
        streams.noteApplied(Int64(entry.position))
        streams.handOver(changes, notifications: notifications, position: Int64(entry.position), freeing: consume dropped)
    }

    /// Lets go of what is kept of users whose entry is passed over: their
    /// views are read from the database when asked for.
    func passed(_ position: Int, users: [Int]) {
        letGo(users, at: position, applied: true)
    }

    func noLongerServed(_ users: [Int], at position: Int) {
        letGo(users, at: position, applied: false)
    }

    /// Lets go of the kept chats and cached views of `users`; `applied`: the
    /// feed is applied to `position` now.
    private func letGo(_ users: [Int], at position: Int, applied: Bool) {
        directory.letGo(users)
        let dropped = cache.forget(users: users)
        if applied { streams.noteApplied(Int64(position)) }
        // Freed on a lane, as the versions a change drops are.
        if !dropped.isEmpty { streams.free(consume dropped, at: Int64(position)) }
    }

    /// Forgets everything followed so far, which no longer holds for the
    /// feed at `position`: the kept chats and the cache start empty, and every
    /// stream gets its view models as of `position`, through its user's lane,
    /// after what the lane has waiting.
    func startOver(at position: Int) {
        directory.removeAll()
        cache.removeAll()
        streams.noteApplied(Int64(position))
        streams.publishEveryFollowedTopic(at: Int64(position))
    }

    /// A sender's name for a notification: read once, then kept, since a
    /// user's name never changes. At most `maxKeptNames`; past it the memory
    /// starts over.
    private func name(of user: Int, in snapshot: FeedSnapshot) -> String? {
        if let name = names.value[user] { return name }
        // A name that cannot be read costs only this notification (the views
        // still change): the feed must go on, not stop at a failed read.
        let found: User?
        do {
            found = try snapshot.reading().user(id: user)
        } catch {
            failures.log("a notification of a message from user \(user) was not sent: their name could not be read: \(error)")
            return nil
        }
        guard let found else { return nil }
        names.withValue { known in
            if known.count >= Self.maxKeptNames { known.removeAll() }
            known[user] = found.name
        }
        return found.name
    }

    static let maxKeptNames = 100_000

    /// The chats of `user` and the contact in each, for a change of their
    /// presence whose user the kept chats do not hold: read here, in the
    /// feed's snapshot, so that the views that show it are dropped before
    /// the write is answered. nil when the read failed: presence then reads
    /// them itself, and the views change a moment later.
    private func contacts(of user: Int, in snapshot: FeedSnapshot) -> [(chat: Int, contact: Int)]? {
        do {
            return try snapshot.reading().chatContacts(of: user)
        } catch {
            failures.log("the contacts of user \(user) could not be read with the feed: they are read apart: \(error)")
            return nil
        }
    }

    /// Adds the topics one change touched to `topics` (straight in: a list
    /// made per change and thrown away was a visible part of the feed's work).
    static func addTopics(touchedBy change: Change, to topics: inout Set<TopicChange>) {
        switch change {
        case .signedUp, .sessionEnded, .pushesQueued, .accountDisabled:
            break
        case .lastSeen, .privacyChanged:
            // Presence builds the views of the user's contacts (`PresenceDriver`).
            break
        case .chatBlocked(let chat, _, _):
            // Both screens and lists: the block and its action, presence shown or not.
            topics.insert(.chats(user: chat.userA))
            topics.insert(.chats(user: chat.userB))
            topics.insert(.chat(user: chat.userA, id: chat.id))
            topics.insert(.chat(user: chat.userB, id: chat.id))
        case .chatOpened(let chat):
            topics.insert(.chats(user: chat.userA))
            topics.insert(.chats(user: chat.userB))
        case .messageSent(let message, let chat):
            // Both lists reorder and show the new last message; the recipient's
            // unread count and badge grow.
            topics.insert(.chats(user: chat.userA))
            topics.insert(.chats(user: chat.userB))
            topics.insert(.chat(user: chat.userA, id: chat.id))
            topics.insert(.chat(user: chat.userB, id: chat.id))
            topics.insert(.badge(user: chat.contact(of: message.senderID)))
        case .messagesRead(let chat, let reader, _):
            // The reader's counts drop; the sender sees read ticks.
            topics.insert(.chats(user: reader))
            topics.insert(.badge(user: reader))
            topics.insert(.chat(user: chat.userA, id: chat.id))
            topics.insert(.chat(user: chat.userB, id: chat.id))
        case .orderChanged(let user, let order), .orderDeleted(let user, let order):
            topics.insert(.orders(user: user))
            topics.insert(.order(user: user, id: order))
        }
    }
}
