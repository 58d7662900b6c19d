/// An account. `name` keeps the case it was chosen with; names are unique ignoring case.
public struct User: Sendable, Equatable {
    public let id: Int
    public let name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    /// The built-in chatbot's name.
    public static let botName = "bot"
}
