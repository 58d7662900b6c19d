/// A view model a stream follows, as the wire names it: `chats`, `badge`,
/// `orders`, `chat:ID` and `order:ID` in `?topics=`. Its events are named by
/// its kind (`event: chat`, the id in the data), its patches by the kind and
/// `.patch` (`event: chat.patch`, the topic in the data). The server reads
/// these names, and the clients write and read them, with this one grammar.
public struct StreamTopic: Hashable, Sendable {
    /// What a topic shows; the name of its events.
    public enum Kind: String, Sendable, CaseIterable {
        case chats, badge, orders, chat, order

        /// Whether topics of this kind name one chat or order by its id.
        public var hasID: Bool { self == .chat || self == .order }
    }

    public let kind: Kind
    /// The chat's or the order's id, as the wire writes it; nil for the
    /// kinds without one.
    public let id: String?

    /// The name of a notification's events, which no topic has.
    public static let notificationEventName = "notification"
    /// What a patch's event name adds to its topic's.
    public static let patchSuffix = ".patch"

    /// A topic of a kind without an id.
    public init(_ kind: Kind) {
        precondition(!kind.hasID, "a \(kind.rawValue) topic names its id")
        self.kind = kind
        id = nil
    }

    /// The topic of one chat or order.
    public init(_ kind: Kind, id: String) {
        precondition(kind.hasID, "a \(kind.rawValue) topic has no id")
        self.kind = kind
        self.id = id
    }

    /// The topic a stream names so (`chats`, `chat:42`); nil for a name the
    /// grammar does not know, or a kind without its id or with one it has not.
    public init?(name: some StringProtocol) {
        let parts = name.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let kind = Kind(rawValue: String(parts[0])) else { return nil }
        switch (kind.hasID, parts.count) {
        case (false, 1): self.init(kind)
        case (true, 2) where !parts[1].isEmpty: self.init(kind, id: String(parts[1]))
        default: return nil
        }
    }

    /// The topic an event of the whole view model is for: its name is the
    /// kind, and the data's `id` names the chat or order. Nil for any other
    /// event (a patch, a notification).
    public init?(eventName: some StringProtocol, id: String?) {
        guard let kind = Kind(rawValue: String(eventName)) else { return nil }
        if kind.hasID {
            guard let id else { return nil }
            self.init(kind, id: id)
        } else {
            self.init(kind)
        }
    }

    /// As a stream names it in `?topics=`.
    public var name: String {
        guard let id else { return kind.rawValue }
        return "\(kind.rawValue):\(id)"
    }

    /// The name of its events of whole view models.
    public var eventName: String { kind.rawValue }

    /// The name of its events of patches.
    public var patchEventName: String { kind.rawValue + Self.patchSuffix }

    /// Whether an event of this name carries a patch.
    public static func isPatch(eventName: some StringProtocol) -> Bool {
        eventName.hasSuffix(patchSuffix)
    }
}
