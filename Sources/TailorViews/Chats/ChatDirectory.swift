import Synchronization
import TailorDomain
import TailorStore

/// The chats of recently active users, as their lists, badges and latest chat
/// screens show them, kept in memory and brought up to date with each entry
/// of the change feed, in order. Those views are then built without reading the
/// database; under load they are most of what the publishers build.
///
/// Only the thread that applies the feed changes it, and it reads what it
/// adds from a snapshot whose place in the feed it knows (`FeedSnapshot`). A user is kept with all of their
/// chats or not at all, so a chat list built from here is never missing one.
/// A view whose user or chat is not kept is built from the database as before.
///
/// Memory is bounded by two generations of users, like `MessagePages`: when
/// the users touched since the last turn hold half of the chat budget, the
/// ones not touched since the turn before are let go, with the chats that no
/// kept user has.
///
/// Each kept user's list is kept in order (`ChatOrder`) with their unread
/// total, and a change moves the one chat it touched: a page of the list is
/// read without sorting the user's other chats, however many they have.
package final class ChatDirectory: Sendable {

    /// Chats kept at most over both generations, unless told otherwise.
    package static let defaultChatBudget = 10_000
    /// What a kept chat holds, about: a page of message states and a few whole messages.
    package static let bytesPerChat = 2560

    /// Chats the users of both generations may hold (a user without chats
    /// counts as one).
    package let chatBudget: Int

    /// A user with more chats than this is not kept (the chatbot talks with
    /// everyone): reading them all would hold the feed up (each chat not kept
    /// yet costs an indexed read of its latest page, on the feed's thread),
    /// and their views are built from the database.
    package let maxChatsPerUser: Int
    package static let defaultMaxChatsPerUser = 1024
    /// Users let go whom a read tells apart as read again.
    static let rememberedLetGo = 100_000

    package init(chatBudget: Int = defaultChatBudget, maxChatsPerUser: Int = defaultMaxChatsPerUser) {
        self.chatBudget = max(chatBudget, 2)
        self.maxChatsPerUser = maxChatsPerUser
    }

    /// Chats kept now.
    package var keptChatCount: Int { state.withLock { $0.chats.count } }

    /// What is kept and how it turned over, for `/metrics`.
    package struct Figures: Sendable, Equatable {
        package var users = 0
        package var chats = 0
        /// The kept chats' memory, about (`KeptChat.approximateBytes`) and
        /// their entries in the tables that find them.
        package var bytes = 0
        /// Users let go: their generation turned, their chats changed unread, or their changes are passed over.
        package var usersLetGo = 0
        /// Users read again after they were let go.
        package var usersReadAgain = 0

        package init(users: Int = 0, chats: Int = 0, bytes: Int = 0, usersLetGo: Int = 0, usersReadAgain: Int = 0) {
            (self.users, self.chats, self.bytes, self.usersLetGo, self.usersReadAgain) = (users, chats, bytes, usersLetGo, usersReadAgain)
        }
    }

    /// Walks every kept chat: for a scrape, not for every request.
    package var figures: Figures {
        state.withLock { state in
            Figures(users: state.newer.count + state.older.count, chats: state.chats.count,
                    bytes: state.chats.values.reduce(0) { $0 + $1.approximateBytes + Self.bytesPerEntry },
                    usersLetGo: state.usersLetGo, usersReadAgain: state.usersReadAgain)
        }
    }

    /// A kept chat's entries in the tables around it: by id, by member, in its users' lists.
    static let bytesPerEntry = 160

    private struct State {
        var chats: [Int: KeptChat] = [:]
        /// Each kept user's chats, by id.
        var newer: [Int: [Int]] = [:]
        var older: [Int: [Int]] = [:]
        var newerChats = 0
        /// Each kept user's list, in either generation.
        var lists: [Int: KeptList] = [:]
        /// The kept chats of each of their members, kept or not: a user's
        /// last seen or privacy changes their chats, not every kept chat.
        var chatsOfMember: [Int: Set<Int>] = [:]
        /// Counted for `figures`; `letGo` remembers whom, up to `rememberedLetGo`.
        var usersLetGo = 0
        var usersReadAgain = 0
        var letGo = Set<Int>()

        mutating func noteLetGo(_ users: some Collection<Int>) {
            usersLetGo += users.count
            if letGo.count + users.count > ChatDirectory.rememberedLetGo { letGo.removeAll() }
            letGo.formUnion(users)
        }

        func chatIDs(of user: Int) -> [Int]? { newer[user] ?? older[user] }

        mutating func add(_ kept: KeptChat) {
            chats[kept.chat.id] = kept
            for member in [kept.chat.userA, kept.chat.userB] { chatsOfMember[member, default: []].insert(kept.chat.id) }
        }

        mutating func remove(_ chat: Chat) {
            chats[chat.id] = nil
            for member in [chat.userA, chat.userB] {
                chatsOfMember[member]?.remove(chat.id)
                if chatsOfMember[member]?.isEmpty == true { chatsOfMember[member] = nil }
            }
        }
    }

    /// A kept user's chats in their list's order, and their unread messages over all of them.
    private struct KeptList {
        var order: ChatOrder
        var unread: Int
    }

    private let state = Mutex(State())

    /// Lets every kept chat and user go.
    package func removeAll() {
        state.withLock { $0 = State() }
    }

    /// Lets `users` go, with their chats that no kept user has: this server
    /// passes over their changes (`ServedUsers`).
    package func letGo(_ users: [Int]) {
        state.withLock { state in
            for user in users where state.chatIDs(of: user) != nil { Self.forget(user, in: &state) }
        }
    }

    // MARK: Reading

    /// A page of a user's chat list, most recent activity first; nil if not
    /// kept. A chat whose row in `written` was written from its state as it
    /// is now is given as unchanged: its summary is not made again.
    package func summaries(of user: Int, page: ChatListPage, written: [Int: ChatListRows.Row] = [:]) -> ChatSummaryPage? {
        state.withLock { state in
            guard state.chatIDs(of: user) != nil, let list = state.lists[user] else { return nil }
            var items: [ChatSummaryPage.Item] = []
            for id in list.order.chats(offset: page.offset, limit: page.limit) {
                // Read in place: most rows are unchanged, and a kept chat is too large to copy for its stamp.
                guard let index = state.chats.index(forKey: id) else { return nil }
                if let row = written[id], row.stamp == state.chats.values[index].stamp {
                    items.append(.unchanged(row))
                } else {
                    items.append(.summary(state.chats.values[index].summary(for: user), stamp: state.chats.values[index].stamp))
                }
            }
            return ChatSummaryPage(items: items, total: list.order.count, unreadTotal: list.unread)
        }
    }

    /// A user's whole chat list; nil if not kept.
    package func summaries(of user: Int) -> [ChatSummary]? {
        summaries(of: user, page: ChatListPage(offset: 0, limit: Int.max))?.summaries
    }

    /// Unread messages over all of a user's chats; nil if not kept.
    package func unreadTotal(of user: Int) -> Int? {
        state.withLock { state in state.chatIDs(of: user) == nil ? nil : state.lists[user]?.unread }
    }

    /// Each chat of a kept user with its other member; nil if the user is not kept.
    package func contacts(of user: Int) -> [(chat: Int, contact: Int)]? {
        state.withLock { state in
            guard let ids = state.chatIDs(of: user) else { return nil }
            let chats = ids.compactMap { state.chats[$0]?.chat }
            guard chats.count == ids.count else { return nil }
            return chats.map { (chat: $0.id, contact: $0.contact(of: user)) }
        }
    }

    /// A kept chat; nil if not kept.
    package func chat(_ id: Int) -> Chat? {
        state.withLock { $0.chats[id]?.chat }
    }

    /// The latest screen of `chat` for `viewer`; nil if the chat is not kept or
    /// is not the viewer's.
    package func screen(of chat: Int, for viewer: Int) -> ChatScreen? {
        state.withLock { state in
            guard let kept = state.chats[chat], kept.chat.includes(viewer) else { return nil }
            return ChatScreen(chat: kept.chat, viewer: kept.user(viewer), contact: kept.user(kept.chat.contact(of: viewer)),
                          page: kept.outline, unread: kept.unread(of: viewer), recent: kept.recent, relations: kept.relations)
        }
    }

    // MARK: Keeping up, where the feed is applied

    /// Brings kept chats up to date with the feed's entry at `position`, and
    /// keeps the users it touched whom `keeps` names (those this server
    /// serves) or who are new (signed up, or in a chat just opened: a server
    /// where they come to be served has them already), read from `snapshot`
    /// if not kept yet. A user touched but not kept here would be let go when
    /// an entry of theirs is passed over, and read whole again at the next
    /// one that is applied; their chats with a kept user stay kept with that
    /// user, whom their views need. The snapshot
    /// may show entries past `position`, since the writer commits on
    /// meanwhile and other servers may write too: a chat read from it
    /// already holds the entries it shows (`FeedPlace`), and skips them
    /// when they come. Returns the first read that failed, if one did: the
    /// users it left out are not kept, and their views are built from the
    /// store, but the caller should say so.
    @discardableResult
    package func committed(_ changes: [Change], at position: Int, snapshot: FeedSnapshot,
                           keeping keeps: (Int) -> Bool = { _ in true }) -> (any Error)? {
        let (touched, stale, new, unknown) = state.withLock { state in
            let (touched, stale, new) = Self.apply(changes, at: position, to: &state)
            return (touched, stale, new, touched.filter { state.chatIDs(of: $0) == nil })
        }
        guard !touched.isEmpty else { return nil }
        let wanted = stale.union(unknown).filter { new.contains($0) || keeps($0) }
        let read = Self.read(users: wanted, from: snapshot, limit: maxChatsPerUser, knowing: { id in
            self.state.withLock { $0.chats[id] != nil }
        })
        state.withLock { state in
            for (id, kept) in read.chats where state.chats[id] == nil { state.add(kept) }
            for user in read.users.keys where state.letGo.remove(user) != nil { state.usersReadAgain += 1 }
            for user in touched {
                if let ids = read.users[user] {
                    Self.keep(user, chats: ids, in: &state)
                } else if stale.contains(user) {
                    // Not read again, so its kept list may lack a chat: let it go.
                    Self.forget(user, in: &state)
                } else if state.newer[user] == nil, let ids = state.older[user] {
                    // Kept in the older generation: moved to the newer. (One in the newer stays.)
                    Self.keep(user, chats: ids, in: &state)
                }
            }
            Self.evictOlderGenerationIfFull(&state, budget: chatBudget)
        }
        return read.failure
    }

    /// Applies what changed to the kept chats. Returns the users touched,
    /// those whose kept lists now lack a chat, and those new to the feed.
    private static func apply(_ changes: [Change], at position: Int, to state: inout State)
        -> (touched: Set<Int>, stale: Set<Int>, new: Set<Int>) {
        var touched = Set<Int>()
        var stale = Set<Int>()
        var new = Set<Int>()
        // The kept chats that do not show this entry yet; one read from a
        // snapshot that shows it already is left alone.
        let behind = Set(changes.compactMap(\.chatID).filter { state.chats[$0].map { !$0.asOf.shows(position) } ?? false })
        for change in changes {
            switch change {
            case .signedUp(let user):
                touched.insert(user)
                new.insert(user)
            case .chatOpened(let chat):
                touched.formUnion([chat.userA, chat.userB])
                stale.formUnion([chat.userA, chat.userB])
                new.formUnion([chat.userA, chat.userB])
            case .messageSent(let message, let chat):
                touched.formUnion([chat.userA, chat.userB])
                if behind.contains(chat.id) { Self.change(chat.id, in: &state) { $0.sent(message) } }
            case .messagesRead(let chat, let reader, _):
                touched.formUnion([chat.userA, chat.userB])
                if behind.contains(chat.id) { Self.change(chat.id, in: &state) { $0.read(by: reader) } }
            case .lastSeen(let user, let time):
                // Whoever keeps the chat: the user, or only their contact.
                for id in state.chatsOfMember[user] ?? [] { state.chats[id]?.seen(user, at: time) }
            case .privacyChanged(let user, let shows):
                for id in state.chatsOfMember[user] ?? [] { state.chats[id]?.privacy(of: user, showsPresence: shows) }
            case .chatBlocked(let chat, let user, let blocked):
                touched.formUnion([chat.userA, chat.userB])
                if behind.contains(chat.id) { state.chats[chat.id]?.block(by: user, blocked) }
            case .orderChanged, .orderDeleted, .sessionEnded, .pushesQueued, .accountDisabled:
                break
            }
        }
        for id in behind { state.chats[id]?.asOf.pass(position) }
        return (touched, stale, new)
    }

    /// Changes a kept chat in place, and moves it in its kept users' lists:
    /// its place by its activity, their unread totals by what it changed.
    private static func change(_ id: Int, in state: inout State, _ body: (inout KeptChat) -> Void) {
        guard let chat = state.chats[id]?.chat, let before = state.chats[id].map({ ($0.unread(of: chat.userA), $0.unread(of: chat.userB)) })
        else { return }
        body(&state.chats[id]!)
        guard let kept = state.chats[id] else { return }
        for (user, was) in [(chat.userA, before.0), (chat.userB, before.1)] where state.lists[user] != nil {
            state.lists[user]?.unread += kept.unread(of: user) - was
            state.lists[user]?.order.move(id, to: kept.lastActivityAt)
        }
    }

    /// Reads `users` whole: each one's chat ids, and every chat not known yet.
    /// A user whose chats cannot all be read, or who has more than `limit`, is
    /// left out; `failure` is the first read that failed.
    private static func read(users: Set<Int>, from snapshot: FeedSnapshot, limit: Int, knowing isKnown: (Int) -> Bool)
        -> (users: [Int: [Int]], chats: [Int: KeptChat], failure: (any Error)?) {
        var readUsers: [Int: [Int]] = [:]
        var readChats: [Int: KeptChat] = [:]
        // Asked only when there is something to read: it may begin the snapshot.
        guard !users.isEmpty else { return ([:], [:], nil) }
        let place: FeedPlace
        let store: Store
        do {
            store = try snapshot.reading()
            place = try snapshot.place()
        } catch {
            // Without its place nothing read could be placed in the feed:
            // every user is left out, as one whose chats cannot be read is.
            return ([:], [:], error)
        }
        var failure: (any Error)?
        for user in users {
            do {
                let ids = try store.chatIDs(of: user, limit: limit + 1)
                guard ids.count <= limit else { continue }
                let chats = try KeptChat.read(ids.filter { readChats[$0] == nil && !isKnown($0) }, from: store, asOf: place)
                readChats.merge(chats) { kept, _ in kept }
                readUsers[user] = ids
            } catch {
                failure = failure ?? error
            }
        }
        return (readUsers, readChats, failure)
    }

    /// Puts `user` in the newer generation, with their list in order: the
    /// one kept already when they keep the same chats (it followed every
    /// change), else one made from their kept chats.
    private static func keep(_ user: Int, chats ids: [Int], in state: inout State) {
        let kept = takeOut(user, from: &state)
        state.newer[user] = ids
        state.newerChats += max(ids.count, 1)
        guard kept != ids || state.lists[user] == nil else { return }
        let chats = ids.compactMap { state.chats[$0] }
        state.lists[user] = chats.count < ids.count ? nil : KeptList(
            order: ChatOrder(chats.map { ChatOrder.Place(activityAt: $0.lastActivityAt, chat: $0.chat.id) }),
            unread: chats.reduce(0) { $0 + $1.unread(of: user) })
    }

    /// Lets `user` go, with their chats that no kept user has.
    private static func forget(_ user: Int, in state: inout State) {
        state.lists[user] = nil
        guard let ids = takeOut(user, from: &state) else { return }
        state.noteLetGo(CollectionOfOne(user))
        evictChats(ids, in: &state)
    }

    /// Removes `user` from both generations; returns their chats if kept.
    @discardableResult
    private static func takeOut(_ user: Int, from state: inout State) -> [Int]? {
        if let held = state.newer.removeValue(forKey: user) {
            state.newerChats -= max(held.count, 1)
            return held
        }
        return state.older.removeValue(forKey: user)
    }

    /// When the newer generation holds half the budget, evicts the older one.
    private static func evictOlderGenerationIfFull(_ state: inout State, budget: Int) {
        guard state.newerChats >= budget / 2 else { return }
        let dropped = state.older
        state.older = state.newer
        state.newer = [:]
        state.newerChats = 0
        for user in dropped.keys { state.lists[user] = nil }
        state.noteLetGo(dropped.keys)
        for ids in dropped.values { evictChats(ids, in: &state) }
    }

    /// Evicts those of `ids` that no kept user has.
    private static func evictChats(_ ids: [Int], in state: inout State) {
        for id in ids {
            guard let chat = state.chats[id]?.chat else { continue }
            if state.chatIDs(of: chat.userA) == nil && state.chatIDs(of: chat.userB) == nil { state.remove(chat) }
        }
    }
}
