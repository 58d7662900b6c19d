import TailorHTTP
import TailorLoop
import TailorStore

/// The view models of every user, answered from the cache or built (from the
/// kept chats when they hold what a view needs, else from the model on a reader
/// connection), encoded once, and offered to the cache.
package final class ViewModelBuilder: Sendable {
    package let database: Database
    package let cache: ViewCache
    package let directory: ChatDirectory
    package let presence: Presence
    package let dates: DateText
    package let now: @Sendable () -> Int
    /// Chat screens' message JSON, shared by every build.
    private let messagePages = MessagePages()
    /// Chat lists' rows as last written, shared by every build.
    private let listRows = ChatListRows()
    /// Where a version's gzip variant is made when a request first asks for
    /// it (`gzip-0`, …), rather than on the request's loop.
    package let compression = ThreadPool(name: "gzip", count: ProcessSetup.usableCPUCount)

    package init(database: Database, cache: ViewCache, directory: ChatDirectory, presence: Presence, dates: DateText,
                 now: @escaping @Sendable () -> Int) {
        self.database = database
        self.cache = cache
        self.directory = directory
        self.presence = presence
        self.dates = dates
        self.now = now
    }

    /// The encoded view model, or nil when the topic is not this user's to see
    /// (an unknown id, or another user's chat or order).
    package func representation(for key: ViewKey) async throws -> CachedRepresentation? {
        if let cached = cache.lookup(key) { return cached }
        return try await encoded(key, withLayout: false)?.representation
    }

    /// A view model built anew with its layout, for a stream that takes
    /// patches (the cache keeps no layouts); nil when not the user's to see.
    package func encodedWithLayout(for key: ViewKey) async throws -> EncodedView? {
        try await encoded(key, withLayout: true)
    }

    /// Builds from the kept chats or else the database, and offers the result to the cache.
    private func encoded(_ key: ViewKey, withLayout layout: Bool) async throws -> EncodedView? {
        let sequence = cache.sequence
        let built: EncodedView?
        if let kept = buildFromKeptChats(key, withLayout: layout) {
            built = kept
        } else {
            built = try await database.readOffLoop { try self.build(key, from: $0, withLayout: layout) }
        }
        guard let built else { return nil }
        cache.offer(built.representation, for: key, builtAfter: sequence)
        return built
    }

    /// Several view models for a publisher pass. Those the kept chats cannot
    /// make are read in one transaction, off the caller's loop: the builds
    /// share a snapshot and a warm page cache. Those in `withLayout` come with
    /// their layout, for patches: they are built anew, since the cache keeps
    /// no layouts.
    package func representations(for keys: [ViewKey], withLayout: Set<ViewKey> = []) async -> [ViewBuild] {
        let sequence = cache.sequence
        var results: [ViewBuild] = []
        results.reserveCapacity(keys.count)
        /// What the kept chats cannot make, with its place in `results`.
        var unbuilt: [(place: Int, key: ViewKey)] = []
        for key in keys {
            let layout = withLayout.contains(key)
            if !layout, let cached = cache.lookup(key) {
                results.append(.built(cached, nil))
            } else if let kept = buildFromKeptChats(key, withLayout: layout) {
                cache.offer(kept.representation, for: key, builtAfter: sequence)
                results.append(.built(kept.representation, kept.layout))
            } else {
                // Stands until the database's answer below replaces it.
                unbuilt.append((results.count, key))
                results.append(.notVisible)
            }
        }
        guard !unbuilt.isEmpty else { return results }
        let fromDatabase: [ViewBuild]
        do {
            fromDatabase = try await database.readOffLoop { [unbuilt] store in
                let shared = SharedReads()
                return unbuilt.map { _, key in
                    do {
                        guard let built = try self.build(key, from: store, sharing: shared, withLayout: withLayout.contains(key)) else {
                            return .notVisible
                        }
                        return .built(built.representation, built.layout)
                    } catch {
                        return .failed(error)
                    }
                }
            }
        } catch {
            // The read transaction itself failed to begin or end.
            fromDatabase = unbuilt.map { _ in .failed(error) }
        }
        for ((place, key), result) in zip(unbuilt, fromDatabase) {
            results[place] = result
            if case .built(let built, _) = result { cache.offer(built, for: key, builtAfter: sequence) }
        }
        return results
    }

    /// The chat view models, which a `ChatSource` makes.
    private enum ChatView {
        case list(ChatListPage)
        case badge
        case screen(id: Int, page: MessagePageRequest)

        /// The chat view model a topic is; nil for the orders' topics.
        init?(_ topic: Topic) {
            switch topic {
            case .chats(let page): self = .list(page)
            case .badge: self = .badge
            case .chat(let id, let page): self = .screen(id: id, page: page)
            case .orders, .order: return nil
            }
        }
    }

    /// A chat list, badge or latest chat screen from the kept chats; nil when
    /// they do not hold all it needs.
    package func buildFromKeptChats(_ key: ViewKey, withLayout layout: Bool = false) -> EncodedView? {
        guard let view = ChatView(key.topic) else { return nil }
        do {
            return try build(view, for: key.user, from: KeptChats(directory: directory), now: now(), withLayout: layout)
        } catch {
            return nil
        }
    }

    /// A chat view model of `user` from `source`: one way, whatever the
    /// source; nil for a chat that is not the user's to see.
    private func build<Source: ChatSource>(_ view: ChatView, for user: Int, from source: Source, now: Int,
                                           withLayout layout: Bool) throws(Source.Failure) -> EncodedView? {
        switch view {
        case .list(let page):
            let written = listRows.rows(of: ChatListRows.Page(viewer: user, offset: page.offset))
            let summaries = try source.summaries(of: user, page: page, written: written)
            let model = ChatListViewModelBuilder(dates: dates, presence: presence).build(summaries, page: page, now: now, viewer: user,
                                                                                         written: written, rows: listRows)
            return ViewModelEncoding.encoded(model, layout: layout)
        case .badge:
            return ViewModelEncoding.encoded(BadgeViewModel(unread: try source.unreadTotal(of: user)), layout: layout)
        case .screen(let id, let page):
            guard let screen = try source.screen(of: id, for: user, page: page) else { return nil }
            let model = try ChatViewModelBuilder(dates: dates, pages: messagePages).build(
                chat: screen.chat, viewer: screen.viewer, contact: screen.contact,
                contactStatus: presence.status(of: screen.contact, in: id, shown: screen.relations.showsPresence(of: screen.contact, to: screen.viewer),
                                               dates: dates, now: now),
                blocked: screen.relations.blocking.contains(user), page: screen.page, request: page,
                unread: screen.unread) { id throws(Source.Failure) in try source.message(id, of: screen) }
            return ViewModelEncoding.encoded(model, layout: layout)
        }
    }

    /// `shared` lets builds in one transaction read a chat's messages once.
    package func build(_ key: ViewKey, from store: Store, sharing shared: SharedReads = SharedReads(), withLayout layout: Bool = false) throws -> EncodedView? {
        let now = now()
        let chats = StoredChats(store: store, shared: shared)
        switch key.topic {
        case .chats(let page):
            return try build(.list(page), for: key.user, from: chats, now: now, withLayout: layout)
        case .badge:
            return try build(.badge, for: key.user, from: chats, now: now, withLayout: layout)
        case .chat(let id, let page):
            return try build(.screen(id: id, page: page), for: key.user, from: chats, now: now, withLayout: layout)
        case .orders(let query):
            // One more than the page: whether a next page exists.
            let orders = try store.orders(of: key.user, status: query.status, matching: query.text, sort: query.sort,
                                          offset: query.offset, limit: query.limit + 1)
            return ViewModelEncoding.encoded(OrderViewModelBuilder(dates: dates).buildList(orders, query: query, now: now), layout: layout)
        case .order(let id):
            guard let order = try store.order(id: id, user: key.user) else { return nil }
            return ViewModelEncoding.encoded(OrderViewModelBuilder(dates: dates).build(order, now: now, withLines: true), layout: layout)
        }
    }
}
