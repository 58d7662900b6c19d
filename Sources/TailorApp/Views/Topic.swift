import TailorStore

/// A view model a user can read or subscribe to. Parameters that shape it are
/// part of the topic, so each variant is cached on its own.
public enum Topic: Hashable, Sendable {
    case chats
    case badge
    case chat(id: Int, page: MessagePageRequest)
    case orders(OrdersQuery)
    case order(id: Int)
}

/// Which messages a chat view model shows.
public struct MessagePageRequest: Hashable, Sendable {
    public var before: Int?
    public var limit: Int

    public static let latest = MessagePageRequest(before: nil, limit: 50)
}

/// How an orders list is asked for: `GET /api/orders?sort=&layout=&q=&status=`.
public struct OrdersQuery: Hashable, Sendable {
    public enum Layout: String, Sendable, CaseIterable {
        case list, compact
    }

    public var sort: OrderSort = .newest
    public var layout: Layout = .list
    public var text = ""
    public var status: OrderStatus?

    /// The parameters of the `orders` topic.
    public static let standard = OrdersQuery()
}

/// One user's view model: what the cache stores and subscribers follow.
public struct ViewKey: Hashable, Sendable {
    public let user: Int
    public let topic: Topic
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
