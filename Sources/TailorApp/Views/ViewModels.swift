import TailorHTTP
import TailorStore

/// The view models of every user, answered from the cache or built from the
/// model on a reader connection, encoded once, and offered to the cache.
final class ViewModels: Sendable {
    let database: Database
    let cache: ViewCache
    let dates: DateText
    let now: @Sendable () -> Int
    /// Chat screens' message JSON, shared by every build.
    private let messagePages = MessagePages()

    init(database: Database, cache: ViewCache, dates: DateText, now: @escaping @Sendable () -> Int) {
        self.database = database
        self.cache = cache
        self.dates = dates
        self.now = now
    }

    /// The encoded view model, or nil when the topic is not this user's to see
    /// (an unknown id, or another user's chat or order).
    func representation(for key: ViewKey) throws -> CachedRepresentation? {
        if let cached = cache.lookup(key) { return cached }
        let sequence = cache.sequence
        guard let built = try database.read({ try build(key, from: $0) }) else { return nil }
        cache.offer(built, for: key, builtAfter: sequence)
        return built
    }

    /// Several view models read in one transaction, for a publisher pass: the
    /// builds share a snapshot and a warm page cache. Nil where a topic is not
    /// the user's to see or its build failed.
    func representations(for keys: [ViewKey]) -> [CachedRepresentation?] {
        var results = keys.map { cache.lookup($0) }
        let missing = results.indices.filter { results[$0] == nil }
        guard !missing.isEmpty else { return results }
        let sequence = cache.sequence
        _ = try? database.read { store in
            let shared = SharedReads()
            for index in missing { results[index] = try? build(keys[index], from: store, sharing: shared) }
        }
        for index in missing {
            if let built = results[index] { cache.offer(built, for: keys[index], builtAfter: sequence) }
        }
        return results
    }

    /// `shared` lets builds in one transaction read a chat's messages once.
    func build(_ key: ViewKey, from store: Store, sharing shared: SharedReads = SharedReads()) throws -> CachedRepresentation? {
        let now = now()
        switch key.topic {
        case .chats:
            let summaries = try store.chatSummaries(of: key.user)
            return ViewModelEncoding.representation(ChatListViewModelBuilder(dates: dates).build(summaries, now: now))
        case .badge:
            return ViewModelEncoding.representation(BadgeViewModel(unread: try store.unreadTotal(of: key.user)))
        case .chat(let id, let page):
            guard let chat = try shared.chat(id, in: store), chat.includes(key.user),
                  let viewer = try shared.user(key.user, in: store), let contact = try shared.user(chat.contact(of: key.user), in: store)
            else { return nil }
            let messages = try shared.page(of: id, page, in: store)
            let unread = try store.unreadCount(chat: id, reader: key.user)
            let model = try ChatViewModelBuilder(dates: dates, pages: messagePages).build(
                chat: chat, viewer: viewer, contact: contact, page: messages, request: page, unread: unread) { id in
                try shared.message(id, in: store)
            }
            return ViewModelEncoding.representation(model)
        case .orders(let query):
            let orders = try store.orders(of: key.user, status: query.status, matching: query.text, sort: query.sort)
            return ViewModelEncoding.representation(OrderViewModelBuilder(dates: dates).buildList(orders, query: query, now: now))
        case .order(let id):
            guard let order = try store.order(id: id, user: key.user) else { return nil }
            return ViewModelEncoding.representation(OrderViewModelBuilder(dates: dates).build(order, now: now, withLines: true))
        }
    }
}
