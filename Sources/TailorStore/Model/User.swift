/// An account. `name` keeps the case it was chosen with; names are unique ignoring case.
public struct User: Sendable, Equatable {
    public let id: Int
    public let name: String
    /// When the user's last event stream closed, in milliseconds since 1970;
    /// nil when they never had one. Only chat screens and lists read it.
    public let lastSeenAt: Int?

    public init(id: Int, name: String, lastSeenAt: Int? = nil) {
        self.id = id
        self.name = name
        self.lastSeenAt = lastSeenAt
    }

    /// The same user, last seen at `time`.
    public func seen(at time: Int) -> User {
        User(id: id, name: name, lastSeenAt: time)
    }

    /// The built-in chatbot's name.
    public static let botName = "bot"
}
