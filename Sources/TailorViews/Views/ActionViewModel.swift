/// A link a client follows to act: the server's version of the articles'
/// "itemTapped" closures. `body` is present where the action needs one.
package struct ActionViewModel: JSONWritable, Equatable, Sendable {
    package let method: String
    package let href: String
    package var body: [String: String]?

    package static func get(_ href: String) -> ActionViewModel { ActionViewModel(method: "GET", href: href) }
    package static func post(_ href: String) -> ActionViewModel { ActionViewModel(method: "POST", href: href) }
    package static func delete(_ href: String) -> ActionViewModel { ActionViewModel(method: "DELETE", href: href) }

    package func write(to json: inout JSONWriter) {
        json.object {
            if let body { $0.field("body", body) }
            $0.field("href", href)
            $0.field("method", method)
        }
    }
}

/// `{"id", "name"}` of a user.
package struct UserViewModel: JSONWritable, Equatable, Sendable {
    package let id: String
    package let name: String

    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("name", name)
        }
    }
}
