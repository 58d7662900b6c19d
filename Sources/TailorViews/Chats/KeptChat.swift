import TailorStore

/// One chat as its users' lists and screens show it now: what `ChatDirectory`
/// keeps of it, and changes as messages are sent and read.
package struct KeptChat: Sendable {
    package let chat: Chat
    package private(set) var userA: User
    package private(set) var userB: User
    /// The states of the newest messages, oldest first: at most a latest page.
    package var latest: [MessageState]
    /// Whether older messages exist before the first of `latest`.
    package var hasEarlier: Bool
    package var unreadOfA: Int
    package var unreadOfB: Int
    /// The newest messages whole, oldest first, for the screens that have not
    /// written them yet (a new message reaches both screens of its chat), and
    /// for the chat lists, which show the last.
    package var recent: [Message]
    /// Who has written in the chat and who blocked the other.
    package var relations: ChatRelations
    /// The feed position this state shows: changes up to it are in it.
    package var asOf: Int

    /// Messages of the latest page: what `GET /api/chats/{id}` shows unasked.
    package static let pageSize = MessagePageRequest.latest.limit
    /// Whole messages kept: a burst of sends between two passes fits.
    package static let recentCount = 8

    package var lastMessage: Message? { recent.last }

    /// What orders a chat list: its last message, or its creation when it has none.
    package var lastActivityAt: Int { lastMessage?.sentAt ?? chat.createdAt }

    package func user(_ id: Int) -> User { id == userA.id ? userA : userB }

    package func unread(of user: Int) -> Int { user == chat.userA ? unreadOfA : unreadOfB }

    package func summary(for user: Int) -> ChatSummary {
        let contact = self.user(chat.contact(of: user))
        return ChatSummary(chatID: chat.id, contact: contact, createdAt: chat.createdAt, lastMessage: lastMessage, unreadCount: unread(of: user),
                           showsContactPresence: relations.showsPresence(of: contact, to: self.user(user)))
    }

    package var outline: MessagePageOutline { MessagePageOutline(states: latest, hasEarlier: hasEarlier) }

    // MARK: Changes

    /// A message was sent. Kept in id order, as the database pages them: on a
    /// database several servers write, ids are drawn before commit, so a
    /// message can come later in the feed than one with a larger id.
    package mutating func sent(_ message: Message) {
        if message.senderID == chat.userA { unreadOfB += 1 } else { unreadOfA += 1 }
        relations.wrote.insert(message.senderID)
        let place = latest.firstIndex { $0.id > message.id } ?? latest.count
        // Older than a full page: not on it, as the database would page it.
        guard place > 0 || !hasEarlier else { return }
        latest.insert(MessageState(message), at: place)
        if latest.count > Self.pageSize {
            latest.removeFirst(latest.count - Self.pageSize)
            hasEarlier = true
        }
        recent.insert(message, at: recent.firstIndex { $0.id > message.id } ?? recent.count)
        if recent.count > Self.recentCount { recent.removeFirst(recent.count - Self.recentCount) }
    }

    /// `user`'s last stream closed at `time`.
    package mutating func seen(_ user: Int, at time: Int) {
        if user == userA.id { userA = userA.seen(at: time) } else if user == userB.id { userB = userB.seen(at: time) }
    }

    /// `user` blocked the other member, or lifted their block.
    package mutating func block(by user: Int, _ blocked: Bool) {
        if blocked { relations.blocking.insert(user) } else { relations.blocking.remove(user) }
    }

    /// `user` changed whether contacts see their presence.
    package mutating func privacy(of user: Int, showsPresence: Bool) {
        if user == userA.id { userA = userA.showing(presence: showsPresence) } else if user == userB.id { userB = userB.showing(presence: showsPresence) }
    }

    /// `reader`'s cursor moved to the newest message: every message of the
    /// other side is read.
    package mutating func read(by reader: Int) {
        if reader == chat.userA { unreadOfA = 0 } else { unreadOfB = 0 }
        latest = latest.map { state in
            state.senderID == reader || state.isRead ? state : MessageState(id: state.id, senderID: state.senderID, isRead: true)
        }
        recent = recent.map { $0.senderID == reader || $0.isRead ? $0 : $0.read() }
    }
}

extension KeptChat {
    /// The chat as the database holds it now, which shows the feed up to `position`.
    package init?(chat id: Int, from store: Store, asOf position: Int) throws {
        guard let chat = try store.chat(id: id), let userA = try store.user(id: chat.userA), let userB = try store.user(id: chat.userB)
        else { return nil }
        let page = try store.messagePageOutline(chat: id, before: nil, limit: Self.pageSize)
        var recent: [Message] = []
        for state in page.states.suffix(Self.recentCount) {
            if let message = try store.message(id: state.id) { recent.append(message) }
        }
        self.init(chat: chat, userA: userA, userB: userB, latest: page.states, hasEarlier: page.hasEarlier,
                  unreadOfA: try store.unreadCount(chat: id, reader: chat.userA),
                  unreadOfB: try store.unreadCount(chat: id, reader: chat.userB), recent: recent, relations: try store.relations(of: id),
                  asOf: position)
    }
}

private extension Message {
    func read() -> Message {
        Message(id: id, chatID: chatID, senderID: senderID, text: text, clientID: clientID, sentAt: sentAt, isRead: true)
    }
}
