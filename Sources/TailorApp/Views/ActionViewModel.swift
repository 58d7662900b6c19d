/// A link a client follows to act: the server's version of the articles'
/// "itemTapped" closures. `body` is present where the action needs one.
struct ActionViewModel: Encodable, Equatable, Sendable {
    let method: String
    let href: String
    var body: [String: String]?

    static func get(_ href: String) -> ActionViewModel { ActionViewModel(method: "GET", href: href) }
    static func post(_ href: String) -> ActionViewModel { ActionViewModel(method: "POST", href: href) }
}

/// `{"id", "name"}` of a user.
struct UserViewModel: Encodable, Equatable, Sendable {
    let id: String
    let name: String
}
