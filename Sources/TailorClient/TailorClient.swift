import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tailor's client for apps: typed view models, read once or followed live
/// (`updates(_:)`), kept on disk so that an app opens with what it showed
/// last, and messages that wait in an outbox until the server has them.
///
/// ```swift
/// let client = TailorClient(baseURL: url, token: token, store: .directory(folder))
/// for try await list in client.updates(.chatList) { show(list) }
/// ```
public final class TailorClient: Sendable {
    private let api: APIConnection
    private let store: DiskStore
    private let outbox: Outbox
    private let live: LiveUpdates

    /// `session` is one of the client's own by default (`sessionConfiguration()`).
    /// A store that was filled with another token is emptied first, and so is
    /// the store when the server says the token is no longer valid (401).
    public init(baseURL: URL, token: String?, store: ClientStore = .none, session: URLSession? = nil) {
        let disk = DiskStore(store, token: token)
        let outbox = Outbox(store: disk)
        self.store = disk
        self.outbox = outbox
        var connection = APIConnection(baseURL: baseURL, token: token, session: session ?? URLSession(configuration: Self.sessionConfiguration()))
        connection.unauthorized = {
            _ = Result { try disk.clear() }
            Task { await outbox.clear() }
        }
        let api = connection
        self.api = api
        // A stream that opens means the server answers: what waits goes now.
        live = LiveUpdates(api: api, store: self.store) {
            do {
                try await outbox.sendWaiting { entry async throws(TailorError) in try await Self.post(entry, through: api) }
            } catch {
                // The store could not be written: what was sent is forgotten in memory, and goes again at most once more.
            }
        }
    }

    /// How the client's sessions are set up: no URL cache, since the store is
    /// the cache, and FoundationNetworking on Linux can stop the process when a
    /// request is cancelled while its session looks in one.
    public static func sessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    // Reading

    public func me() async throws(TailorError) -> User {
        struct Answer: Decodable { let user: User }
        return try await api.send("GET", "/api/me", as: Answer.self).user
    }

    public func chatList() async throws(TailorError) -> ChatList {
        try await api.send("GET", "/api/chats", as: ChatList.self)
    }

    public func chat(_ id: String) async throws(TailorError) -> ChatScreen {
        try await api.send("GET", Topic.chat(id).path, as: ChatScreen.self)
    }

    public func badge() async throws(TailorError) -> Badge {
        try await api.send("GET", "/api/badge", as: Badge.self)
    }

    /// A page of orders as `query` asks (nil fields: the server's defaults).
    public func orders(_ query: OrderList.Query = .init()) async throws(TailorError) -> OrderList {
        let items = [("sort", query.sort), ("layout", query.layout), ("q", query.query), ("status", query.status)]
            .compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        return try await api.send("GET", "/api/orders", query: items, as: OrderList.self)
    }

    public func order(_ id: String) async throws(TailorError) -> OrderDetails {
        try await api.send("GET", Topic.order(id).path, as: OrderDetails.self)
    }

    /// Values of `topic` as they change: the stored (or already held) value
    /// first, when there is one, then each new one. One event stream carries
    /// every topic being followed; after a drop it resumes from the last
    /// event id, so no change is missed, and a value equal to the one before
    /// is not repeated (versions that came while the stream was down arrive
    /// as their latest). Ends on cancellation; a 401 (or a topic that is not
    /// the user's, 404) ends it with a `TailorError`.
    public func updates<Value>(_ topic: Topic<Value>) -> AsyncThrowingStream<Value, any Error> {
        let (values, continuation) = AsyncThrowingStream<Value, any Error>.makeStream()
        let id = UUID()
        let live = live
        let follower = LiveUpdates.Follower(
            deliver: { json in
                do {
                    continuation.yield(try Value.decoded(from: json))
                } catch {
                    continuation.finish(throwing: TailorError(status: 200, code: "invalid_answer",
                                                              message: "\(topic.name) is not a \(Value.self): \(error)"))
                }
            },
            fail: { continuation.finish(throwing: $0) })
        let following = Task { await live.follow(topic.name, as: id, follower) }
        continuation.onTermination = { _ in
            Task {
                await following.value
                await live.stop(topic.name, as: id)
            }
        }
        return values
    }

    /// Messages that arrive in chats no followed topic shows (the in-app
    /// banner), while any topic is followed with `updates(_:)`: the server
    /// sends them on that stream. Ends on cancellation.
    public func notifications() -> AsyncStream<ChatNotification> {
        let (notifications, continuation) = AsyncStream<ChatNotification>.makeStream()
        let id = UUID()
        let live = live
        let listening = Task {
            await live.listen(as: id) { json in
                // One the client cannot read is not shown; the chat's own topic still has the message.
                if case .success(let notification) = Result(catching: { try json.decoded(as: ChatNotification.self) }) {
                    continuation.yield(notification)
                }
            }
        }
        continuation.onTermination = { _ in
            Task {
                await listening.value
                await live.stopListening(as: id)
            }
        }
        return notifications
    }

    // Writing

    /// Opens the chat with `contact` (the existing one, if there is one).
    public func openChat(with contact: String) async throws(TailorError) -> ChatScreen {
        try await api.send("POST", "/api/chats", body: .object(["contact": .string(contact)]), as: ChatScreen.self)
    }

    /// Sends a message. It is kept in the outbox (on disk with a store) with
    /// a new clientId before it goes; when the server cannot be reached or
    /// cannot take it now, the error is thrown and the message stays, to be
    /// sent again with the same clientId when the server answers: stored once.
    public func send(_ text: String, to chatId: String) async throws -> Message {
        let entry = OutboxEntry(chatId: chatId, clientId: UUID().uuidString, text: text)
        try await outbox.keep(entry)
        let message: Message
        do {
            message = try await Self.post(entry, through: api)
        } catch {
            if !error.isPassing { try await outbox.forget(entry.clientId) }
            throw error
        }
        try await outbox.forget(entry.clientId)
        return message
    }

    /// Sends the messages still waiting, oldest first; stops at the first the server cannot take now.
    public func sendWaiting() async throws {
        let api = api
        try await outbox.sendWaiting { entry async throws(TailorError) in try await Self.post(entry, through: api) }
    }

    /// The messages not yet taken by the server.
    public func waitingMessages() async -> [(chatId: String, text: String)] {
        await outbox.waiting.map { ($0.chatId, $0.text) }
    }

    /// Marks every message of the chat read; gives how many were newly marked.
    @discardableResult
    public func markRead(_ chatId: String) async throws(TailorError) -> Int {
        struct Answer: Decodable { let read: Int }
        return try await api.send("POST", "/api/chats/\(chatId.addingPercentEncodingForPath())/read", as: Answer.self).read
    }

    /// One of a view model's actions; gives the answer's JSON (`.null` for none).
    @discardableResult
    public func perform(_ action: Action) async throws(TailorError) -> JSONValue {
        try await api.send(action.method, action.href, body: action.body)
    }

    /// Forgets what is stored and waiting: the session ended.
    public func forget() async throws {
        await outbox.clear()
        try store.clear()
    }

    private static func post(_ entry: OutboxEntry, through api: APIConnection) async throws(TailorError) -> Message {
        struct Answer: Decodable { let message: Message }
        let body = JSONValue.object(["text": .string(entry.text), "clientId": .string(entry.clientId)])
        return try await api.send("POST", "/api/chats/\(entry.chatId.addingPercentEncodingForPath())/messages",
                                  body: body, as: Answer.self).message
    }
}
