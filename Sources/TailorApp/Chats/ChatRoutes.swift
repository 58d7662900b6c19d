import TailorHTTP
import TailorStore
import TailorViews

/// The chat list, chats, messages, read receipts and the badge.
struct ChatRoutes {
    let context: AppContext

    /// A message, after trimming.
    static let messageLimit = TextLimit(characters: 1...4000, bytes: 16 * 1024)
    /// The client id a sender may attach for safe retries.
    static let clientIDLimit = TextLimit(characters: 1...100, bytes: 128)

    private struct SentMessage: JSONWritable {
        let message: MessageViewModel

        func write(to json: inout JSONWriter) {
            json.object { $0.field("message", message) }
        }
    }

    private struct ReadCount: JSONWritable {
        let read: Int

        func write(to json: inout JSONWriter) {
            json.object { $0.field("read", read) }
        }
    }

    func register(on router: inout Router) {
        router.get("/api/chats") { request in
            let user = try await context.auth.user(for: request)
            return try await context.respond(request, user: user, topic: .chats(page: try Self.listPage(request)), missing: "chat list")
        }
        router.post("/api/chats") { request in try await openChat(request) }
        router.get("/api/chats/{id}") { request in
            let user = try await context.auth.user(for: request)
            let id = try AppContext.id(request, missing: "chat")
            return try await context.respond(request, user: user, topic: .chat(id: id, page: try Self.page(request)), missing: "chat")
        }
        router.post("/api/chats/{id}/messages") { request in try await send(request) }
        router.post("/api/chats/{id}/read") { request in
            let user = try await context.auth.user(for: request)
            let id = try AppContext.id(request, missing: "chat")
            let count = try await inChat { try await context.events.markRead(chat: id, reader: user.id) }
            return ViewModelEncoding.response(ReadCount(read: count))
        }
        router.post("/api/chats/{id}/typing") { request in try await typing(request) }
        router.post("/api/chats/{id}/block") { request in try await block(request, true) }
        router.delete("/api/chats/{id}/block") { request in try await block(request, false) }
        router.get("/api/badge") { request in
            let user = try await context.auth.user(for: request)
            return try await context.respond(request, user: user, topic: .badge, missing: "badge")
        }
    }

    /// The chat list's `?offset=` and `?limit=` (1–200, default 100).
    static func listPage(_ request: HTTPRequest) throws -> ChatListPage {
        let page = try PageParameters(request, defaultLimit: ChatListPage.size, maxLimit: ChatListPage.maxSize)
        return ChatListPage(offset: page.offset, limit: page.limit)
    }

    /// `?limit=` (1–200, default 50) and `?before=MESSAGE_ID`.
    static func page(_ request: HTTPRequest) throws -> MessagePageRequest {
        var page = MessagePageRequest.latest
        if let limit = request.query("limit") {
            guard let value = Int(limit), (1...200).contains(value) else { throw APIError.invalidQuery("limit must be 1 to 200.") }
            page.limit = value
        }
        if let before = request.query("before") {
            guard let value = Int(before), value > 0 else { throw APIError.invalidQuery("before must be a message id.") }
            page.before = value
        }
        return page
    }

    /// The user types in a chat: the contact sees "typing…" until the user's
    /// message arrives or `typingDuration` passes without another signal.
    /// Nothing is stored.
    private func typing(_ request: HTTPRequest) async throws -> HTTPResponse {
        let user = try await context.auth.user(for: request)
        let id = try AppContext.id(request, missing: "chat")
        var chat = context.views.directory.chat(id)
        if chat == nil { chat = try await context.views.database.readOffLoop { try $0.chat(id: id) } }
        guard let chat, chat.includes(user.id) else { throw APIError.notFound("chat") }
        context.presence.typed(in: chat.id, by: user.id, contact: chat.contact(of: user.id))
        return HTTPResponse(status: .noContent)
    }

    private func openChat(_ request: HTTPRequest) async throws -> HTTPResponse {
        let user = try await context.auth.user(for: request)
        let contact = try JSONBody(request).string("contact").trimmed
        guard contact.lowercased() != user.name.lowercased() else { throw APIError.invalid("You cannot open a chat with yourself.") }
        let opened: (chat: Chat, created: Bool)
        do {
            opened = try await context.events.openChat(user: user.id, contact: contact)
        } catch StoreError.unknownUser {
            throw HTTPError(.notFound, code: "unknown_contact", message: "There is no user named \(contact).")
        }
        let (chat, created) = opened
        return try await context.respond(request, user: user, topic: .chat(id: chat.id, page: .latest), missing: "chat",
                                   status: created ? .created : .ok)
    }

    private func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let user = try await context.auth.user(for: request)
        let id = try AppContext.id(request, missing: "chat")
        let body = try JSONBody(request)
        let text = try body.text("text", within: Self.messageLimit)
        let clientID = try body.optionalText("clientId", within: Self.clientIDLimit, trimming: false)
        let (message, duplicate) = try await inChat { try await context.events.send(chat: id, sender: user.id, text: text, clientID: clientID) }
        let model = ChatViewModelBuilder(dates: context.views.dates).message(for: message, viewer: user, contact: user)
        return ViewModelEncoding.response(SentMessage(message: model), status: duplicate ? .ok : .created)
    }

    /// The user blocks the contact of a chat, or lifts the block: answered
    /// with the chat as it is then.
    private func block(_ request: HTTPRequest, _ blocked: Bool) async throws -> HTTPResponse {
        let user = try await context.auth.user(for: request)
        let id = try AppContext.id(request, missing: "chat")
        try await inChat { try await context.events.block(chat: id, by: user.id, blocked) }
        return try await context.respond(request, user: user, topic: .chat(id: id, page: .latest), missing: "chat")
    }

    /// Runs a change of a chat: a chat that is not there, or not the user's,
    /// is 404; one that either member blocked takes no message (403).
    private func inChat<Answer>(_ change: () async throws -> Answer) async throws -> Answer {
        do {
            return try await change()
        } catch StoreError.notFound {
            throw APIError.notFound("chat")
        } catch StoreError.blocked {
            throw APIError.blocked
        }
    }
}
