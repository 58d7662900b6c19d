import TailorHTTP
import TailorStore
import TailorWire

/// A view model a user can read or subscribe to. Parameters that shape it are
/// part of the topic, so each variant is cached on its own.
public enum Topic: Hashable, Sendable {
    case chats(page: ChatListPage)
    case badge
    case chat(id: Int, page: MessagePageRequest)
    case orders(OrdersQuery)
    case order(id: Int)
}

extension Topic {
    /// What it shows, as the wire names it.
    package var kind: StreamTopic.Kind {
        switch self {
        case .chats: .chats
        case .badge: .badge
        case .chat: .chat
        case .orders: .orders
        case .order: .order
        }
    }

    /// The topic as a stream names it in `?topics=`.
    package var streamTopic: StreamTopic {
        switch self {
        case .chat(let id, _): StreamTopic(.chat, id: String(id))
        case .order(let id): StreamTopic(.order, id: String(id))
        default: StreamTopic(kind)
        }
    }

    /// The name of its events of whole view models on a stream (`event: chat`).
    package var eventName: String { kind.rawValue }

    /// The name of its events of patches (`event: chat.patch`).
    package var patchEventName: String { kind.rawValue + StreamTopic.patchSuffix }
}

/// Which messages a chat view model shows.
public struct MessagePageRequest: Hashable, Sendable {
    public var before: Int?
    public var limit: Int

    public static let latest = MessagePageRequest(before: nil, limit: 50)
}

/// Which chats a chat list view model holds: `limit` after the first `offset`,
/// newest activity first. Streams follow the first page.
public struct ChatListPage: Hashable, Sendable {
    public var offset = 0
    public var limit = ChatListPage.size

    package init(offset: Int = 0, limit: Int = ChatListPage.size) {
        self.offset = offset
        self.limit = limit
    }

    /// Chats in a page unless asked otherwise, and at most.
    public static let size = 100
    public static let maxSize = 200

    public static let first = ChatListPage()

    /// The address of the list from `offset` on.
    func href(offset: Int) -> String {
        var parameters: [String] = []
        if offset > 0 { parameters.append("offset=\(offset)") }
        if limit != Self.size { parameters.append("limit=\(limit)") }
        return "/api/chats" + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }
}

/// How an orders list is asked for: `GET /api/orders?sort=&layout=&q=&status=&offset=&limit=`.
/// A list holds one page: no view model grows with the number of orders.
public struct OrdersQuery: Hashable, Sendable {
    public enum Layout: String, Sendable, CaseIterable {
        case list, compact
    }

    public var sort: OrderSort = .newest
    public var layout: Layout = .list
    public var text = ""
    public var status: OrderStatus?
    /// Orders skipped before the page, in the list's order.
    public var offset = 0
    public var limit = OrdersQuery.pageSize

    /// Orders in a page unless asked otherwise, and at most.
    public static let pageSize = 100
    public static let maxPageSize = 200

    /// The address of this list from `offset` on, with every parameter that
    /// differs from the defaults.
    func href(offset: Int) -> String {
        var parameters: [(String, String)] = []
        if sort != .newest { parameters.append(("sort", sort.rawValue)) }
        if layout != .list { parameters.append(("layout", layout.rawValue)) }
        if !text.isEmpty { parameters.append(("q", text)) }
        if let status { parameters.append(("status", status.rawValue)) }
        if offset > 0 { parameters.append(("offset", String(offset))) }
        if limit != Self.pageSize { parameters.append(("limit", String(limit))) }
        guard !parameters.isEmpty else { return "/api/orders" }
        return "/api/orders?" + parameters.map { "\($0)=\(PercentEncoding.queryValue($1))" }.joined(separator: "&")
    }

    /// The parameters of the `orders` topic.
    public static let standard = OrdersQuery()
}

/// One user's view model: what the cache stores and subscribers follow.
public struct ViewKey: Hashable, Sendable {
    public let user: Int
    public let topic: Topic

    package init(user: Int, topic: Topic) {
        self.user = user
        self.topic = topic
    }
}

/// A group of a user's topics that a change touched.
public enum TopicChange: Hashable, Sendable {
    case chats(user: Int)
    case badge(user: Int)
    case chat(user: Int, id: Int)
    case orders(user: Int)
    case order(user: Int, id: Int)

    /// The change that touches `topic` of `user`.
    public init(_ topic: Topic, of user: Int) {
        switch topic {
        case .chats: self = .chats(user: user)
        case .badge: self = .badge(user: user)
        case .chat(let id, _): self = .chat(user: user, id: id)
        case .orders: self = .orders(user: user)
        case .order(let id): self = .order(user: user, id: id)
        }
    }

    public var user: Int {
        switch self {
        case .chats(let user), .badge(let user), .chat(let user, _), .orders(let user), .order(let user, _): user
        }
    }

    /// Whether `topic` (of the same user) is one this change touched.
    public func touches(_ topic: Topic) -> Bool {
        switch (self, topic) {
        case (.chats, .chats), (.badge, .badge), (.orders, .orders): true
        case (.chat(_, let id), .chat(let other, _)): id == other
        case (.order(_, let id), .order(let other)): id == other
        default: false
        }
    }
}
