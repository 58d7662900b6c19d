/// CORS for pages served from other origins (`--allow-origin`), off unless
/// origins are named: a preflight `OPTIONS` from an allowed origin is answered
/// 204 with what may follow, and every answer to such an origin says it may
/// read it, credentials included (an `EventSource` with `withCredentials`).
/// Other origins get no such fields, and a browser keeps the answer from them.
/// Every answer says `Vary: Origin`, so that no cache hands one origin's
/// answer to another.
public struct CrossOrigin: Sendable {
    /// The allowed origins, each as a browser writes it (`Origin.serialized`).
    public let origins: Set<String>

    /// Seconds a browser may keep a preflight's answer.
    public static let preflightMaxAge = 600
    /// The methods the API's routes answer.
    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE"

    /// `origins`: as given, in any case and with or without the scheme's
    /// own port; each must be one `CrossOrigin.serialized` takes.
    public init(origins: Set<String> = []) {
        self.origins = Set(origins.compactMap(Self.serialized))
    }

    public var isEnabled: Bool { !origins.isEmpty }

    /// An origin as a browser sends it in `Origin` (RFC 6454 §6.2): the scheme
    /// and host in lower case, the port only when it is not the scheme's
    /// own; nil for anything but an http or https origin with no path.
    public static func serialized(_ text: String) -> String? {
        let lowered = text.lowercased()
        let scheme: String
        let defaultPort: String
        if lowered.hasPrefix("https://") {
            (scheme, defaultPort) = ("https", "443")
        } else if lowered.hasPrefix("http://") {
            (scheme, defaultPort) = ("http", "80")
        } else {
            return nil
        }
        var authority = lowered.dropFirst(scheme.count + 3)
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ ".contains($0) }) else { return nil }
        // The port follows the last colon outside an IPv6 address's brackets.
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            let port = authority[authority.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else { return nil }
            if port == defaultPort { authority = authority[..<colon] }
        }
        return scheme + "://" + authority
    }

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
            HTTPField("Access-Control-Allow-Methods", Self.allowedMethods),
            HTTPField("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID, X-Request-ID, If-None-Match, Tailor-Position"),
            HTTPField("Access-Control-Max-Age", String(Self.preflightMaxAge)),
        ])
    }

    /// `response` with the fields that let `request`'s origin read it, when it is allowed.
    func decorate(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard isEnabled else { return response }
        var response = response
        guard let origin = allowedOrigin(of: request) else {
            response.headers.append(HTTPField("Vary", "Origin"))
            return response
        }
        response.headers += Self.fields(for: origin) + [
            HTTPField("Access-Control-Expose-Headers", "ETag, Retry-After, Tailor-Position, X-Request-ID"),
        ]
        return response
    }

    private static func fields(for origin: String) -> [HTTPField] {
        [HTTPField("Access-Control-Allow-Origin", origin), HTTPField("Access-Control-Allow-Credentials", "true"), HTTPField("Vary", "Origin")]
    }
}
