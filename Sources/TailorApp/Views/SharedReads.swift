import TailorStore

/// What several builds in one read transaction may share: a chat, its users, a
/// page of its messages and a new message are the same for both of its users'
/// chat screens, so a publisher pass that rebuilds both reads them once.
///
/// Lives only as long as the transaction it was filled in, so it never holds
/// anything stale.
final class SharedReads {
    private var chats: [Int: Chat?] = [:]
    private var users: [Int: User?] = [:]
    private var pages: [PageKey: MessagePageOutline] = [:]
    private var messages: [Int: Message?] = [:]

    private struct PageKey: Hashable {
        let chat: Int
        let request: MessagePageRequest
    }

    func chat(_ id: Int, in store: Store) throws -> Chat? {
        if let known = chats[id] { return known }
        let chat = try store.chat(id: id)
        chats[id] = .some(chat)
        return chat
    }

    func user(_ id: Int, in store: Store) throws -> User? {
        if let known = users[id] { return known }
        let user = try store.user(id: id)
        users[id] = .some(user)
        return user
    }

    func page(of chat: Int, _ request: MessagePageRequest, in store: Store) throws -> MessagePageOutline {
        let key = PageKey(chat: chat, request: request)
        if let known = pages[key] { return known }
        let page = try store.messagePageOutline(chat: chat, before: request.before, limit: request.limit)
        pages[key] = page
        return page
    }

    func message(_ id: Int, in store: Store) throws -> Message? {
        if let known = messages[id] { return known }
        let message = try store.message(id: id)
        messages[id] = .some(message)
        return message
    }
}
