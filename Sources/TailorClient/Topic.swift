import Foundation

/// A view model the server streams, named as the stream names it, and the
/// type its values come as: `.chatList`, `.chat(id)`, `.badge`, `.orders`
/// (the list's default view) and `.order(id)`, which is nil once the order
/// is deleted.
public struct Topic<Value: TopicValue>: Sendable, Hashable {
    public let name: String

    /// Where the view model is read.
    var path: String {
        let parts = name.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return "/api/\(name)" }
        return "/api/\(parts[0])s/\(String(parts[1]).addingPercentEncodingForPath())"
    }
}

extension Topic where Value == ChatList {
    public static var chatList: Topic<ChatList> { Topic(name: "chats") }
}

extension Topic where Value == ChatScreen {
    public static func chat(_ id: String) -> Topic<ChatScreen> { Topic(name: "chat:\(id)") }
}

extension Topic where Value == Badge {
    public static var badge: Topic<Badge> { Topic(name: "badge") }
}

extension Topic where Value == OrderList {
    public static var orders: Topic<OrderList> { Topic(name: "orders") }
}

extension Topic where Value == OrderDetails? {
    public static func order(_ id: String) -> Topic<OrderDetails?> { Topic(name: "order:\(id)") }
}

/// A type a topic's view model decodes as.
public protocol TopicValue: Sendable, Equatable {
    static func decoded(from json: JSONValue) throws -> Self
}

extension TopicValue where Self: Decodable {
    public static func decoded(from json: JSONValue) throws -> Self { try json.decoded(as: Self.self) }
}

extension ChatList: TopicValue {}
extension ChatScreen: TopicValue {}
extension Badge: TopicValue {}
extension OrderList: TopicValue {}

/// A deleted order comes as `{"id", "deleted": true}`: nil.
extension Optional: TopicValue where Wrapped == OrderDetails {
    public static func decoded(from json: JSONValue) throws -> OrderDetails? {
        if json["deleted"] == .bool(true) { return nil }
        return try json.decoded(as: OrderDetails.self)
    }
}

extension String {
    /// Percent-encoded as one path segment.
    func addingPercentEncodingForPath() -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
