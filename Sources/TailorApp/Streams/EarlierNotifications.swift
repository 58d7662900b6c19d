import TailorDomain
import TailorFeed
import TailorStore
import TailorStreams

/// The notifications of messages committed before the server started, read
/// back from what the database still holds, so that a stream resuming from
/// before the start (every server restarted since its last event) gets those
/// after its last event, as from a server that never stopped.
///
/// - PostgreSQL: the latest entries of the feed up to the start, decoded as
///   the follower decodes them.
/// - SQLite: the latest messages, which keep their commit's position.
enum EarlierNotifications {
    /// Feed entries (PostgreSQL) or messages (SQLite) read back at most: as
    /// many as a lane's log holds.
    static let readAtMost = EventStreams.logCapacity

    /// Those at or before `position`, oldest first.
    static func read(from store: Store, through position: Int) throws -> [EventStreams.Notification] {
        switch store.connection.engine {
        case .sqlite: try store.recentNotifications(through: position, count: readAtMost, notification)
        case .postgres: try fromFeed(of: store, through: position)
        }
    }

    private static func notification(at position: Int, for recipient: Int, in chatID: Int, from contact: String,
                                     saying text: String) -> EventStreams.Notification {
        EventStreams.Notification(recipient: recipient, chatID: chatID, contact: contact, text: text, position: Int64(position))
    }

    /// The notifications for `user` of PostgreSQL's entries that touch them
    /// after `position` through `last` (at most the latest `readAtMost`):
    /// those of a stream resuming where the feed passed its user over.
    static func missed(by user: Int, after position: Int, through last: Int, from store: Store) throws -> [EventStreams.Notification] {
        try notifications(in: store.feedEntries(touching: user, after: position, through: last, limit: readAtMost), from: store)
            .filter { $0.recipient == user }
    }

    /// The messages of PostgreSQL's latest entries up to `position`.
    private static func fromFeed(of store: Store, through position: Int) throws -> [EventStreams.Notification] {
        let page = try store.feedPage(after: max(position - readAtMost, 0), limit: readAtMost)
        return try notifications(in: page.entries.filter { $0.position <= position }.map { ($0.position, $0.body) }, from: store)
    }

    /// The notifications of the messages in `entries`. An entry that cannot
    /// be decoded (a newer server's) is passed over, as the follower passes it over.
    private static func notifications(in entries: [(position: Int, body: [UInt8])], from store: Store) throws -> [EventStreams.Notification] {
        var names: [Int: String] = [:]
        var found: [EventStreams.Notification] = []
        for (entryPosition, body) in entries {
            let changes: [Change]
            do {
                changes = try ChangeEncoding.changes(from: body)
            } catch {
                continue
            }
            for case .messageSent(let message, let chat) in changes {
                if names[message.senderID] == nil { names[message.senderID] = try store.user(id: message.senderID)?.name }
                guard let contact = names[message.senderID] else { continue }
                found.append(notification(at: entryPosition, for: chat.contact(of: message.senderID), in: chat.id, from: contact,
                                          saying: message.text))
            }
        }
        return found
    }
}
