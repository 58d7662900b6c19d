import Foundation
import TailorWire

/// A view model the server streams, named as the stream names it, and the
/// type its values come as: `.chatList`, `.chat(id)`, `.badge`, `.orders`
/// (the list's default view) and `.order(id)`, which is nil once the order
/// is deleted.
public struct Topic<Value: TopicValue>: Sendable, Hashable {
    public let name: String

    /// Where the view model is read.
    var path: String {
        guard let topic = StreamTopic(name: name), let id = topic.id else { return "/api/\(name)" }
        return "/api/\(topic.kind.rawValue)s/\(id.addingPercentEncodingForPath())"
    }
}

extension Topic where Value == ChatList {
    public static var chatList: Topic<ChatList> { Topic(name: StreamTopic(.chats).name) }
}

extension Topic where Value == ChatScreen {
    public static func chat(_ id: String) -> Topic<ChatScreen> { Topic(name: StreamTopic(.chat, id: id).name) }
}

extension Topic where Value == Badge {
    public static var badge: Topic<Badge> { Topic(name: StreamTopic(.badge).name) }
}

extension Topic where Value == OrderList {
    public static var orders: Topic<OrderList> { Topic(name: StreamTopic(.orders).name) }
}

extension Topic where Value == OrderDetails? {
    public static func order(_ id: String) -> Topic<OrderDetails?> { Topic(name: StreamTopic(.order, id: id).name) }
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
