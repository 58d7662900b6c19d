import TailorStore

/// Where the chat view models (a chat list, a badge, a chat screen) read a
/// chat's state: the kept chats, which follow the feed in memory, or on a miss
/// the store. One build reads either through this, so a view model is made
/// one way whatever its source.
package protocol ChatSource {
    associatedtype Failure: Error

    /// A page of a user's chats, most recent activity first. A chat of
    /// `written` (the rows of the page as last written) that has not changed
    /// since may be given as unchanged, without its summary.
    func summaries(of user: Int, page: ChatListPage, written: [Int: ChatListRows.Row]) throws(Failure) -> ChatSummaryPage
    /// Unread messages over all of a user's chats.
    func unreadTotal(of user: Int) throws(Failure) -> Int
    /// A page of `chat` as `viewer` sees it; nil when it is not the viewer's.
    func screen(of chat: Int, for viewer: Int, page: MessagePageRequest) throws(Failure) -> ChatScreen?
    /// A message of the screen whose JSON the build has not kept.
    func message(_ id: Int, of screen: ChatScreen) throws(Failure) -> Message?
}

/// A page of a user's chat list: its chats, and what the whole list counts.
package struct ChatSummaryPage: Equatable {
    /// One chat of the page.
    package enum Item: Equatable {
        /// The chat as the list shows it; `stamp` is the kept chat's state
        /// it was read from (`KeptChat.stamp`), nil when read from the store.
        /// Boxed: few items of a kept page are summaries, and the page's
        /// items are then a word each rather than a summary's size.
        indirect case summary(ChatSummary, stamp: Int?)
        /// As the row last written of it shows it: nothing changed since.
        case unchanged(ChatListRows.Row)

        /// The chat it shows.
        package var chatID: Int {
            switch self {
            case .summary(let summary, _): summary.chatID
            case .unchanged(let row): row.summary.chatID
            }
        }

        package static func == (a: Item, b: Item) -> Bool {
            switch (a, b) {
            case (.summary(let one, let oneStamp), .summary(let other, let otherStamp)): one == other && oneStamp == otherStamp
            case (.unchanged(let one), .unchanged(let other)): one.summary == other.summary && one.stamp == other.stamp
            default: false
            }
        }
    }

    package let items: [Item]
    /// The user's chats in all.
    package let total: Int
    /// Unread messages over all of the user's chats.
    package let unreadTotal: Int

    package init(items: [Item], total: Int, unreadTotal: Int) {
        self.items = items
        self.total = total
        self.unreadTotal = unreadTotal
    }

    /// `page` of `all`, a user's whole list.
    package init(page: ChatListPage, of all: [ChatSummary]) {
        let start = min(page.offset, all.count)
        self.init(items: all[start..<(start + min(page.limit, all.count - start))].map { .summary($0, stamp: nil) }, total: all.count,
                  unreadTotal: all.reduce(0) { $0 + $1.unreadCount })
    }

    /// The summaries the page gives (all of them, unless some are unchanged).
    package var summaries: [ChatSummary] {
        items.compactMap { item in
            guard case .summary(let summary, _) = item else { return nil }
            return summary
        }
    }
}

/// A page of one chat as one of its users sees it, without its messages'
/// texts: the messages' states, the unread count, and the newest messages
/// whole where the source holds them.
package struct ChatScreen {
    package let chat: Chat
    package let viewer: User
    package let contact: User
    package let page: MessagePageOutline
    package let unread: Int
    package let recent: [Message]
    /// Who has written and who blocked the other.
    package let relations: ChatRelations
}

/// The kept chats as a source: a user or chat they do not hold, or a page
/// before the latest, is `NotKept`, and the build goes to the store.
package struct KeptChats: ChatSource {
    package struct NotKept: Error {}

    package let directory: ChatDirectory

    package func summaries(of user: Int, page: ChatListPage, written: [Int: ChatListRows.Row]) throws(NotKept) -> ChatSummaryPage {
        guard let summaries = directory.summaries(of: user, page: page, written: written) else { throw NotKept() }
        return summaries
    }

    package func unreadTotal(of user: Int) throws(NotKept) -> Int {
        guard let unread = directory.unreadTotal(of: user) else { throw NotKept() }
        return unread
    }

    package func screen(of chat: Int, for viewer: Int, page: MessagePageRequest) throws(NotKept) -> ChatScreen? {
        guard page == .latest, let screen = directory.screen(of: chat, for: viewer) else { throw NotKept() }
        return screen
    }

    /// Messages the screen has not written yet must be among the recent ones.
    package func message(_ id: Int, of screen: ChatScreen) throws(NotKept) -> Message? {
        guard let message = screen.recent.first(where: { $0.id == id }) else { throw NotKept() }
        return message
    }
}

/// The store as a source, in one read transaction whose builds share what
/// they read (`SharedReads`).
package struct StoredChats: ChatSource {
    package let store: Store
    package let shared: SharedReads

    package func summaries(of user: Int, page: ChatListPage, written: [Int: ChatListRows.Row]) throws -> ChatSummaryPage {
        ChatSummaryPage(page: page, of: try store.chatSummaries(of: user))
    }

    package func unreadTotal(of user: Int) throws -> Int {
        try store.unreadTotal(of: user)
    }

    package func screen(of chat: Int, for viewer: Int, page: MessagePageRequest) throws -> ChatScreen? {
        guard let found = try shared.chat(chat, in: store), found.includes(viewer),
              let viewerUser = try shared.user(viewer, in: store), let contact = try shared.user(found.contact(of: viewer), in: store)
        else { return nil }
        return ChatScreen(chat: found, viewer: viewerUser, contact: contact, page: try shared.page(of: chat, page, in: store),
                          unread: try store.unreadCount(chat: chat, reader: viewer), recent: [], relations: try store.relations(of: chat))
    }

    package func message(_ id: Int, of screen: ChatScreen) throws -> Message? {
        try shared.message(id, in: store)
    }
}
