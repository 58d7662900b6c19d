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
        let stored = switch store.connection.engine {
        case .sqlite: try store.recentNotifications(through: position, count: readAtMost)
        case .postgres: try fromFeed(of: store, through: position)
        }
        return stored.map {
            EventStreams.Notification(recipient: $0.recipient, chatID: $0.chatID, contact: $0.contact, text: $0.text, position: Int64($0.position))
        }
    }

    /// The messages of PostgreSQL's latest entries up to `position`. An entry
    /// that cannot be decoded (a newer server's) is passed over, as the
    /// follower passes it over.
    private static func fromFeed(of store: Store, through position: Int) throws -> [StoredNotification] {
        let page = try store.feedPage(after: max(position - readAtMost, 0), limit: readAtMost)
        var names: [Int: String] = [:]
        var found: [StoredNotification] = []
        for (entryPosition, body) in page.entries where entryPosition <= position {
            let changes: [Change]
            do {
                changes = try ChangeEncoding.changes(from: body)
            } catch {
                continue
            }
            for case .messageSent(let message, let chat) in changes {
                if names[message.senderID] == nil { names[message.senderID] = try store.user(id: message.senderID)?.name }
                guard let contact = names[message.senderID] else { continue }
                found.append(StoredNotification(position: entryPosition, recipient: chat.contact(of: message.senderID), chatID: chat.id,
                                                contact: contact, text: message.text))
            }
        }
        return found
    }
}
