/// An account. `name` keeps the case it was chosen with; names are unique ignoring case.
public struct User: Sendable, Equatable {
    public let id: Int
    public let name: String
    /// When the user's last event stream closed, in milliseconds since 1970;
    /// nil when they never had one. Only chat screens and lists read it.
    public let lastSeenAt: Int?
    /// Whether the user lets contacts see their presence (and so sees theirs):
    /// their privacy setting, on unless they turned it off.
    public let showsPresence: Bool

    public init(id: Int, name: String, lastSeenAt: Int? = nil, showsPresence: Bool = true) {
        self.id = id
        self.name = name
        self.lastSeenAt = lastSeenAt
        self.showsPresence = showsPresence
    }

    /// The same user, last seen at `time`.
    public func seen(at time: Int) -> User {
        User(id: id, name: name, lastSeenAt: time, showsPresence: showsPresence)
    }

    /// The same user, with the privacy setting `showsPresence`.
    public func showing(presence showsPresence: Bool) -> User {
        User(id: id, name: name, lastSeenAt: lastSeenAt, showsPresence: showsPresence)
    }

    /// The built-in chatbot's name.
    public static let botName = "bot"
}
