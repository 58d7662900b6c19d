/// The request line and header fields of one request, checked and interpreted.
public struct HTTPRequestHead: Sendable {
    /// How the body of the request is delimited (RFC 9112 §6.3).
    public enum BodyFraming: Equatable, Sendable {
        case none
        case length(Int)
        case chunked
    }

    public var method: HTTPMethod
    /// The target's path, percent-decoded: `/api/chats/42`.
    public var path: String
    /// The query's `name=value` pairs after `?`, percent-decoded, in order.
    public var queryItems: [QueryItem]
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    public var headers: HTTPHeaders
    /// Whether the client lets the connection stay open after this exchange.
    public var keepAlive: Bool
    public var bodyFraming: BodyFraming
    /// The client waits for `100 Continue` before it sends the body.
    public var expectsContinue: Bool
}
