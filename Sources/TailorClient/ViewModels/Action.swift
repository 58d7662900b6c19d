/// Something a view model lets its user do: the request to send, as the
/// server wrote it (`{"method": "POST", "href": "/api/…", "body": …}`).
public struct Action: Codable, Sendable, Equatable {
    public let method: String
    public let href: String
    public let body: JSONValue?
}

/// An order's move to another status: an action with its name and label.
public struct NamedAction: Codable, Sendable, Equatable {
    public let name: String
    public let label: String
    public let method: String
    public let href: String
    public let body: JSONValue?

    public var action: Action { Action(method: method, href: href, body: body) }
}
