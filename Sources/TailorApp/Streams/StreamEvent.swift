import TailorHTTP
import TailorLoop

/// One Server-Sent Event, its bytes made once: `id: N`, `event: NAME`, one `data:`
/// line of JSON, and the blank line that ends it (WHATWG HTML §9.2).
struct StreamEvent: Sendable {
    let id: Int64
    let bytes: SharedBytes

    /// `json` is a view model's shared bytes: copied once, into the event's.
    init(id: Int64, name: String, json: SharedBytes) {
        self.id = id
        var text = Array("id: \(id)\nevent: \(name)\ndata: ".utf8)
        text.reserveCapacity(text.count + json.count + 2)
        text.append(contentsOf: json.bytes)
        text.append(contentsOf: [10, 10])
        bytes = SharedBytes(text)
    }

    /// The event name of a topic's view model.
    static func name(of topic: Topic) -> String {
        switch topic {
        case .chats: "chats"
        case .badge: "badge"
        case .chat: "chat"
        case .orders: "orders"
        case .order: "order"
        }
    }

    static let retry = SharedBytes("retry: 3000\n\n")
    static let heartbeat = SharedBytes(": ping\n\n")
}
