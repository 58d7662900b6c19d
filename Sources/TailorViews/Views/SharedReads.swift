import TailorStore

/// What several builds in one read transaction may share: a chat, its users, a
/// page of its messages and a new message are the same for both of its users'
/// chat screens, so a publisher pass that rebuilds both reads them once.
///
/// Used where a view is built from the database rather than the kept chats.
/// Lives only as long as the transaction it was filled in, so it never holds
/// anything stale.
package final class SharedReads {
    private var chats: [Int: Chat?] = [:]
    private var users: [Int: User?] = [:]
    private var pages: [PageKey: MessagePageOutline] = [:]
    private var messages: [Int: Message?] = [:]

    private struct PageKey: Hashable {
        let chat: Int
        let request: MessagePageRequest
    }

    package func chat(_ id: Int, in store: Store) throws -> Chat? {
        try Self.remembered(id, in: &chats) { try store.chat(id: id) }
    }

    package func user(_ id: Int, in store: Store) throws -> User? {
        try Self.remembered(id, in: &users) { try store.user(id: id) }
    }

    package func page(of chat: Int, _ request: MessagePageRequest, in store: Store) throws -> MessagePageOutline {
        try Self.remembered(PageKey(chat: chat, request: request), in: &pages) {
            try store.messagePageOutline(chat: chat, before: request.before, limit: request.limit)
        }
    }

    package func message(_ id: Int, in store: Store) throws -> Message? {
        try Self.remembered(id, in: &messages) { try store.message(id: id) }
    }

    /// What `read` gives for `key`, read only the first time (nil too is kept).
    private static func remembered<Key: Hashable, Value>(_ key: Key, in memory: inout [Key: Value],
                                                          _ read: () throws -> Value) rethrows -> Value {
        if let known = memory[key] { return known }
        let value = try read()
        memory[key] = value
        return value
    }
}
