import TailorStore

/// One committed change as every server learns of it from the change feed:
/// what the kept chats, the view cache, the streams, the chatbot and the
/// sign-in cache need to follow it. Outcomes that change nothing another
/// server shows (a duplicate message, a read of nothing, a session seen) are
/// not changes.
package enum Change: Sendable, Equatable {
    /// A new user, with no chats yet: the kept chats keep them from the start.
    case signedUp(user: Int)
    case chatOpened(Chat)
    case messageSent(Message, in: Chat)
    case messagesRead(chat: Chat, reader: Int, at: Int)
    case orderChanged(user: Int, order: Int)
    case orderDeleted(user: Int, order: Int)
    /// A browser signed out: its token no longer signs in, on any server.
    case sessionEnded(tokenHash: [UInt8])
    /// Pushes of `message` wait for `recipient`'s push subscriptions: a server
    /// with a stream of theirs showing the chat cancels them, and every
    /// server's delivery learns that pushes are due.
    case pushesQueued(message: Int, chat: Chat, recipient: Int)
    /// `user` left: their last event stream closed at `at` (their contacts
    /// see "last seen").
    case lastSeen(user: Int, at: Int)
    /// `user` blocked the other member of `chat`, or lifted the block.
    case chatBlocked(chat: Chat, by: Int, blocked: Bool)
    /// `user` let contacts see their presence, or stopped: their contacts'
    /// views and their own change.
    case privacyChanged(user: Int, showsPresence: Bool)
    /// An operator disabled `user`'s account: its credentials and streams end on every server.
    case accountDisabled(user: Int)

    /// The chat whose messages it changed.
    package var chatID: Int? {
        switch self {
        case .messageSent(_, let chat), .messagesRead(let chat, _, _), .chatBlocked(let chat, _, _): chat.id
        default: nil
        }
    }

    /// What an event's outcome changed that other servers follow; none for
    /// outcomes that change nothing they show.
    package static func changes(of outcome: EventOutcome) -> [Change] {
        switch outcome {
        case .signedUp(let user, _):
            [.signedUp(user: user.id)]
        case .sessionSeen:
            []
        case .lastSeen(let user, let time, let changed):
            changed ? [.lastSeen(user: user, at: time)] : []
        case .sessionEnded(let session):
            [.sessionEnded(tokenHash: session.tokenHash)]
        case .sessionStarted(_, let ended), .passwordChanged(_, let ended):
            ended.map { .sessionEnded(tokenHash: $0.tokenHash) }
        case .chatOpened(let chat, _, let created):
            created ? [.chatOpened(chat)] : []
        case .chatBlocked(let chat, let user, let blocked, let changed):
            changed ? [.chatBlocked(chat: chat, by: user, blocked: blocked)] : []
        case .privacySet(let user, let shows, let changed):
            changed ? [.privacyChanged(user: user, showsPresence: shows)] : []
        case .messageSent(let message, let chat, let duplicate, let pushes):
            duplicate ? [] : [.messageSent(message, in: chat)]
                + (pushes > 0 ? [.pushesQueued(message: message.id, chat: chat, recipient: chat.contact(of: message.senderID))] : [])
        case .messagesRead(let chat, let reader, let count, let time):
            count > 0 ? [.messagesRead(chat: chat, reader: reader, at: time)] : []
        case .orderChanged(let order):
            [.orderChanged(user: order.userID, order: order.id)]
        case .orderDeleted(let user, let order):
            [.orderDeleted(user: user, order: order)]
        case .pushSubscribed, .pushRecorded, .pushesClaimed, .subscriptionFailing:
            []
        }
    }
}

/// Changes that one commit made, at their place in the feed.
package struct FeedEntry: Sendable, Equatable {
    package let position: Int
    package let changes: [Change]

    package init(position: Int, changes: [Change]) {
        self.position = position
        self.changes = changes
    }
}
