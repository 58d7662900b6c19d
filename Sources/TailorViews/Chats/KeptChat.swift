import Synchronization
import TailorStore

/// One chat as its users' lists and screens show it now: what `ChatDirectory`
/// keeps of it, and changes as messages are sent and read.
///
/// Read state is the database's: a cursor per member (`ReadCursors`), and a
/// message is read exactly when it lies at or before the cursor of the member
/// who did not send it (`isRead`, the one rule, which the SQL applies too).
/// Ticks and the unread counts follow from the cursors; nothing else records
/// whether a message is read.
package struct KeptChat: Sendable {
    /// A message of the latest page: who sent it, which says whose cursor reads it.
    package struct Sent: Sendable, Equatable {
        package let id: Int
        package let senderID: Int
    }

    package let chat: Chat
    package private(set) var userA: User
    package private(set) var userB: User
    /// The newest messages, oldest first: at most a latest page.
    package private(set) var latest: [Sent]
    /// Whether older messages exist before the first of `latest`.
    package private(set) var hasEarlier: Bool
    /// Each member's cursor: the id of the last message they have read.
    package private(set) var cursors: ReadCursors
    /// Each member's unread messages (the other's after their cursor), counted
    /// as they come: older ones than the latest page count too.
    private var unreadOfA: Int
    private var unreadOfB: Int
    /// The newest messages whole, oldest first, for the screens that have not
    /// written them yet (a new message reaches both screens of its chat), and
    /// for the chat lists, which show the last. Their read state is the cursors'.
    private var recentlySent: [Message]
    /// Who has written in the chat and who blocked the other.
    package private(set) var relations: ChatRelations
    /// The feed's entries this state shows: their changes are in it.
    package var asOf: FeedPlace
    /// Drawn anew, from one count for all kept chats, each time this state is
    /// made or changed: two states with one stamp are the same, so a list row
    /// written from one is written from the other (`ChatListRows`).
    package private(set) var stamp: Int

    private static let stamps = Atomic<Int>(0)
    private static func nextStamp() -> Int { stamps.add(1, ordering: .relaxed).newValue }

    /// Messages of the latest page: what `GET /api/chats/{id}` shows unasked.
    package static let pageSize = MessagePageRequest.latest.limit
    /// Whole messages kept: a burst of sends between two passes fits.
    package static let recentCount = 8

    package init(chat: Chat, userA: User, userB: User, latest: [Sent], hasEarlier: Bool, cursors: ReadCursors,
                 unreadOfA: Int, unreadOfB: Int, recent: [Message], relations: ChatRelations, asOf: FeedPlace) {
        self.chat = chat
        self.userA = userA
        self.userB = userB
        self.latest = latest
        self.hasEarlier = hasEarlier
        self.cursors = cursors
        self.unreadOfA = unreadOfA
        self.unreadOfB = unreadOfB
        recentlySent = recent
        self.relations = relations
        self.asOf = asOf
        stamp = Self.nextStamp()
    }

    /// The memory this chat holds, about: itself, its page's states, its whole
    /// messages and their texts, its users' names (a text of 15 bytes or
    /// fewer lives inside its string).
    package var approximateBytes: Int {
        func heap(_ text: String?) -> Int { text.map { $0.utf8.count > 15 ? 32 + $0.utf8.count : 0 } ?? 0 }
        return MemoryLayout<KeptChat>.stride + 32 + latest.capacity * MemoryLayout<Sent>.stride
            + 32 + recentlySent.reduce(0) { $0 + MemoryLayout<Message>.stride + heap($1.text) + heap($1.clientID) }
            + heap(userA.name) + heap(userB.name)
    }

    /// Whether the message `id` that `sender` sent is read: the rule of the SQL.
    package func isRead(_ id: Int, sentBy sender: Int) -> Bool {
        id <= cursors.ofRecipient(whenSentBy: sender)
    }

    /// The newest messages whole, with their read state now.
    package var recent: [Message] {
        recentlySent.map { $0.reading(isRead($0.id, sentBy: $0.senderID)) }
    }

    package var lastMessage: Message? { recentlySent.last.map { $0.reading(isRead($0.id, sentBy: $0.senderID)) } }

    /// What orders a chat list: its last message, or its creation when it has none.
    package var lastActivityAt: Int { recentlySent.last?.sentAt ?? chat.createdAt }

    package func user(_ id: Int) -> User { id == userA.id ? userA : userB }

    package func unread(of user: Int) -> Int { user == chat.userA ? unreadOfA : unreadOfB }

    package func summary(for user: Int) -> ChatSummary {
        let contact = self.user(chat.contact(of: user))
        return ChatSummary(chatID: chat.id, contact: contact, createdAt: chat.createdAt, lastMessage: lastMessage, unreadCount: unread(of: user),
                           showsContactPresence: relations.showsPresence(of: contact, to: self.user(user)))
    }

    package var outline: MessagePageOutline {
        MessagePageOutline(states: latest.map { MessageState(id: $0.id, senderID: $0.senderID, isRead: isRead($0.id, sentBy: $0.senderID)) },
                           hasEarlier: hasEarlier)
    }

    // MARK: Changes

    /// A message was sent. Kept in id order, as the database pages them: on a
    /// database several servers write, ids are drawn before commit, so a
    /// message can come later in the feed than one with a larger id.
    package mutating func sent(_ message: Message) {
        stamp = Self.nextStamp()
        // One its recipient's cursor already passed (drawn before their read mark) is read.
        if !isRead(message.id, sentBy: message.senderID) {
            if message.senderID == chat.userA { unreadOfB += 1 } else { unreadOfA += 1 }
        }
        relations.wrote.insert(message.senderID)
        let place = latest.firstIndex { $0.id > message.id } ?? latest.count
        // Older than a full page: not on it, as the database would page it.
        guard place > 0 || !hasEarlier else { return }
        latest.insert(Sent(id: message.id, senderID: message.senderID), at: place)
        if latest.count > Self.pageSize {
            latest.removeFirst(latest.count - Self.pageSize)
            hasEarlier = true
        }
        recentlySent.insert(message, at: recentlySent.firstIndex { $0.id > message.id } ?? recentlySent.count)
        if recentlySent.count > Self.recentCount { recentlySent.removeFirst(recentlySent.count - Self.recentCount) }
    }

    /// `user`'s last stream closed at `time`.
    package mutating func seen(_ user: Int, at time: Int) {
        stamp = Self.nextStamp()
        if user == userA.id { userA = userA.seen(at: time) } else if user == userB.id { userB = userB.seen(at: time) }
    }

    /// `user` blocked the other member, or lifted their block.
    package mutating func block(by user: Int, _ blocked: Bool) {
        stamp = Self.nextStamp()
        if blocked { relations.blocking.insert(user) } else { relations.blocking.remove(user) }
    }

    /// `user` changed whether contacts see their presence.
    package mutating func privacy(of user: Int, showsPresence: Bool) {
        stamp = Self.nextStamp()
        if user == userA.id { userA = userA.showing(presence: showsPresence) } else if user == userB.id { userB = userB.showing(presence: showsPresence) }
    }

    /// `reader`'s cursor moved to the newest message, as the database moves
    /// it: every message of the other side is read, and none is left unread.
    package mutating func read(by reader: Int) {
        stamp = Self.nextStamp()
        let newest = latest.last?.id ?? 0
        cursors.readThrough[reader] = max(cursors.readThrough[reader] ?? 0, newest)
        if reader == chat.userA { unreadOfA = 0 } else { unreadOfB = 0 }
    }
}

extension KeptChat {
    /// The chats of `ids` as the database holds them now, which shows the
    /// feed's entries of `place`: one query for each kind of row, their latest
    /// pages included (each found by its index, a page at most, however long
    /// the chat). Chats that do not exist are left out.
    package static func read(_ ids: [Int], from store: Store, asOf place: FeedPlace) throws -> [Int: KeptChat] {
        let chats = try store.chats(ids: ids)
        let users = Dictionary(try store.users(ids: Array(Set(chats.flatMap { [$0.userA, $0.userB] }))).map { ($0.id, $0) }) { first, _ in first }
        let members = Dictionary(grouping: try store.members(ofChats: chats.map(\.id)), by: \.chatID)
        var cursors: [Int: ReadCursors] = [:]
        for chat in chats {
            var chatCursors = ReadCursors()
            for member in members[chat.id] ?? [] { chatCursors.readThrough[member.userID] = member.readThrough }
            cursors[chat.id] = chatCursors
        }
        let latestPages = try store.latestPages(ofChats: chats.map(\.id), limit: pageSize, cursors: cursors)
        let recentIDs = latestPages.values.flatMap { $0.states.suffix(recentCount).map(\.id) }
        let recent = Dictionary(grouping: try store.messages(ids: recentIDs), by: \.chatID)
        var kept: [Int: KeptChat] = [:]
        for chat in chats {
            guard let userA = users[chat.userA], let userB = users[chat.userB], let page = latestPages[chat.id], let cursors = cursors[chat.id] else {
                continue
            }
            var relations = ChatRelations()
            var unread: [Int: Int] = [:]
            for member in members[chat.id] ?? [] {
                unread[member.userID] = member.unread
                if member.blocked { relations.blocking.insert(member.userID) }
                if member.wrote { relations.wrote.insert(member.userID) }
            }
            kept[chat.id] = KeptChat(chat: chat, userA: userA, userB: userB, latest: page.states.map { Sent(id: $0.id, senderID: $0.senderID) },
                                     hasEarlier: page.hasEarlier, cursors: cursors, unreadOfA: unread[chat.userA] ?? 0,
                                     unreadOfB: unread[chat.userB] ?? 0, recent: (recent[chat.id] ?? []).sorted { $0.id < $1.id },
                                     relations: relations, asOf: place)
        }
        return kept
    }
}

private extension Message {
    func reading(_ read: Bool) -> Message {
        read == isRead ? self : Message(id: id, chatID: chatID, senderID: senderID, text: text, clientID: clientID, sentAt: sentAt, isRead: read)
    }
}
