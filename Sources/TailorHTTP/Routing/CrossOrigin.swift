/// CORS for pages served from other origins (`--allow-origin`), off unless
/// origins are named: a preflight `OPTIONS` from an allowed origin is answered
/// 204 with what may follow, and every answer to such an origin says it may
/// read it, credentials included (an `EventSource` with `withCredentials`).
/// Other origins get no such fields, and a browser keeps the answer from them.
public struct CrossOrigin: Sendable {
    public let origins: Set<String>

    /// Seconds a browser may keep a preflight's answer.
    public static let preflightMaxAge = 600

    public init(origins: Set<String> = []) {
        self.origins = origins
    }

    public var isEnabled: Bool { !origins.isEmpty }

    /// The request's `Origin` when it is allowed.
    func allowedOrigin(of request: HTTPRequest) -> String? {
        guard isEnabled, let origin = request.headers["origin"], origins.contains(origin) else { return nil }
        return origin
    }

    /// The answer to a preflight, or nil when the request is not one.
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .options, request.headers["access-control-request-method"] != nil else { return nil }
        guard let origin = allowedOrigin(of: request) else { return HTTPResponse(status: .noContent, headers: [HTTPField("Vary", "Origin")]) }
        return HTTPResponse(status: .noContent, headers: Self.fields(for: origin) + [
            HTTPField("Access-Control-Allow-Methods", "GET, HEAD, POST, PATCH, DELETE"),
            HTTPField("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID, X-Request-ID, If-None-Match, Tailor-Position"),
            HTTPField("Access-Control-Max-Age", String(Self.preflightMaxAge)),
        ])
    }

    /// `response` with the fields that let `request`'s origin read it, when it is allowed.
    func decorate(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard let origin = allowedOrigin(of: request) else { return response }
        var response = response
        response.headers += Self.fields(for: origin) + [
            HTTPField("Access-Control-Expose-Headers", "ETag, Retry-After, Tailor-Position, X-Request-ID"),
        ]
        return response
    }

    private static func fields(for origin: String) -> [HTTPField] {
        [HTTPField("Access-Control-Allow-Origin", origin), HTTPField("Access-Control-Allow-Credentials", "true"), HTTPField("Vary", "Origin")]
    }
}
