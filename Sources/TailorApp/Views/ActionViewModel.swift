/// A link a client follows to act: the server's version of the articles'
/// "itemTapped" closures. `body` is present where the action needs one.
struct ActionViewModel: JSONWritable, Equatable, Sendable {
    let method: String
    let href: String
    var body: [String: String]?

    static func get(_ href: String) -> ActionViewModel { ActionViewModel(method: "GET", href: href) }
    static func post(_ href: String) -> ActionViewModel { ActionViewModel(method: "POST", href: href) }

    func write(to json: inout JSONWriter) {
        json.object {
            if let body { $0.field("body", body) }
            $0.field("href", href)
            $0.field("method", method)
        }
    }
}

/// `{"id", "name"}` of a user.
struct UserViewModel: JSONWritable, Equatable, Sendable {
    let id: String
    let name: String

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("name", name)
        }
    }
}
