import TailorLoop

/// A header field of a response.
public struct HTTPField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete response: status, the fields a handler chose, and the body bytes.
///
/// `Server`, `Date`, `Content-Length` and `Connection` are written by the
/// connection; a handler sets the rest. The body is `SharedBytes`, so a cached
/// representation is sent by every connection without a copy.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: [HTTPField]
    public var body: SharedBytes
    /// Close the connection after this response (its peer is not to be trusted,
    /// or it asked to).
    public var closesConnection = false
    /// A body written over time after the head (Server-Sent Events): the connection
    /// sends the head with `Transfer-Encoding: chunked` and hands itself to
    /// `stream`, which closes the `ResponseStream` or hands it on to what will
    /// (on its loop) before it returns. `body` is not sent then.
    public var stream: (@Sendable (ResponseStream) async -> Void)?
    /// A body sent from a file instead of `body` (large static files).
    public var file: FileBody?
    /// Sent as `X-Request-ID`; kept apart from `headers`, so that adding it
    /// never copies them.
    public var requestID: String?
    /// What the answer is to a browser, which decides the fields the server
    /// adds to it (`BrowserFields`); handlers write no `Cache-Control` of their own.
    public var kind = Kind.data

    /// What an answer is to a browser.
    public enum Kind: Sendable {
        /// An API answer or an error: it may carry a user's data.
        case data
        /// The page or one of its files.
        case page
        /// Never to be kept: an event stream, metrics, a token.
        case unstored
    }

    /// The length of the body as sent.
    public var bodyLength: Int { file?.length ?? body.count }

    public init(status: HTTPStatus = .ok, headers: [HTTPField] = [], body: SharedBytes = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static let jsonContentType = "application/json; charset=utf-8"

    /// A JSON response from text that is already JSON.
    public static func json(_ json: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPField("Content-Type", jsonContentType)], body: SharedBytes(json))
    }

    /// The value of the field `name`, ignoring case.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}
