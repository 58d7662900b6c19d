import TailorLoop

/// A request as a handler sees it: the head, the whole body, and the values the
/// route's pattern captured.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// Values captured by the route pattern, in order: `{id}` in `/api/chats/{id}`.
    public var parameters: [(name: String, value: String)] = []
    /// The address the connection came from; nil for a request made in code.
    public var peer: PeerAddress?
    /// The client's address as far as can be believed: the peer's, or behind a
    /// trusted proxy the one it forwarded (`ProxyTrust`).
    public var client: PeerAddress?
    /// Whether the client spoke HTTPS to a trusted proxy in front.
    public var isSecure = false
    /// Its id (`RequestIDs`), once the responder has one.
    public var id: String?
    /// What handlers note about it, when answers are observed.
    public var notes: RequestNotes?
    /// Whether its client is still connected; nil for a request made in code.
    public var presence: ClientPresence?

    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }

    /// A request made in code, for tests and internal calls.
    public init(method: HTTPMethod, path: String, queryItems: [QueryItem] = [], headers: [(String, String)] = [], body: [UInt8] = []) {
        self.init(head: HTTPRequestHead(
            method: method, path: path, queryItems: queryItems, minorVersion: 1, headers: HTTPHeaders(headers),
            keepAlive: true, bodyFraming: body.isEmpty ? .none : .length(body.count), expectsContinue: false), body: body)
    }

    public var method: HTTPMethod { head.method }
    public var path: String { head.path }
    public var headers: HTTPHeaders { head.headers }

    /// The value the route captured as `{name}`.
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// The first decoded value of the query parameter `name`.
    public func query(_ name: String) -> String? {
        head.queryItems.first { $0.name == name }?.value
    }
}
