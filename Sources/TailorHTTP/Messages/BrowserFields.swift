/// The header fields browsers act on, which the server adds to every answer
/// according to what the answer is (`HTTPResponse.Kind`): handlers never
/// write them, so no answer can go without them.
///
/// - Every answer: `X-Content-Type-Options: nosniff`, so that a browser takes
///   a JSON body for JSON and never runs it as a script or page.
/// - The page and its files (`.page`): a content security policy that lets
///   the page load and connect to its own origin only (a message's text that
///   slipped into the DOM as markup would still not run), no framing, no
///   referrer to other sites, the browser features the page does not use
///   turned off, and `Cache-Control: no-cache`, so that a new release reaches
///   browsers at once while an unchanged file costs a 304.
/// - Answers that may carry a user's data, errors included (`.data`):
///   `Cache-Control: private, no-cache`: no shared cache keeps them, and the
///   browser revalidates with the ETag.
/// - Answers never to be kept (`.unstored`: event streams, metrics, answers
///   carrying a token): `Cache-Control: no-store`.
///
/// Each kind's fields are written once, here, as the lines of a response
/// head, so adding them costs an answer one copy of constant bytes.
public struct BrowserFields: Sendable {
    /// The head lines of each kind, each line starting with CRLF.
    let data: String
    let page: String
    let unstored: String

    /// The policy's directives, in the order sent. `'self'` is the page's own
    /// origin, which serves the API and the event stream too.
    public static let defaultPolicy: [(name: String, value: String)] = [
        ("default-src", "'self'"),
        ("script-src", "'self'"),
        ("style-src", "'self'"),
        ("img-src", "'self'"),
        ("connect-src", "'self'"),
        ("worker-src", "'self'"),
        ("manifest-src", "'self'"),
        ("object-src", "'none'"),
        ("frame-ancestors", "'none'"),
        ("base-uri", "'none'"),
        ("form-action", "'self'"),
    ]

    /// Features of the browser the page never asks for, off for it and for
    /// anything it might embed. Only features every current browser names:
    /// an unknown one is a console warning.
    static let permissionsPolicy = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"

    /// The default fields, with `extraPolicy` extending the content security
    /// policy: each of its directives (as `img-src 'self' https://cdn.example`,
    /// separated by `;`) replaces the default's directive of that name, or is
    /// added after them.
    public init(extraPolicy: String = "") throws(InvalidPolicy) {
        let policy = try Self.contentSecurityPolicy(extending: extraPolicy)
        data = Self.lines(("X-Content-Type-Options", "nosniff"), ("Cache-Control", "private, no-cache"))
        unstored = Self.lines(("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store"))
        page = Self.lines(("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-cache"),
                          ("Content-Security-Policy", policy), ("Referrer-Policy", "same-origin"),
                          ("X-Frame-Options", "DENY"), ("Permissions-Policy", Self.permissionsPolicy))
    }

    /// The head lines for an answer of `kind`.
    func lines(for kind: HTTPResponse.Kind) -> String {
        switch kind {
        case .data: data
        case .page: page
        case .unstored: unstored
        }
    }

    /// A policy directive that a header cannot carry, or that names no directive.
    public struct InvalidPolicy: Error, CustomStringConvertible {
        public let directive: String
        public var description: String {
            "not a content security policy directive: \(directive) (give directives as name and sources, separated by ';')"
        }
    }

    /// The default policy with `extra`'s directives in place of the same-named
    /// defaults (RFC 9110's field values allow no control characters; CSP's
    /// grammar allows no `,` inside a policy).
    public static func contentSecurityPolicy(extending extra: String) throws(InvalidPolicy) -> String {
        var directives = defaultPolicy
        for given in extra.split(separator: ";") {
            let trimmed = given.trimmed
            if trimmed.isEmpty { continue }
            let name = trimmed.prefix { $0 != " " }.lowercased()
            let isToken = !name.isEmpty && name.allSatisfy { $0 == "-" || ($0.isASCII && $0.isLetter) }
            let isValue = trimmed.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F && $0 != "," }
            guard isToken, isValue else { throw InvalidPolicy(directive: trimmed) }
            let value = trimmed.dropFirst(name.count).trimmed
            if let index = directives.firstIndex(where: { $0.name == name }) {
                directives[index].value = value
            } else {
                directives.append((name, value))
            }
        }
        return directives.map { $0.value.isEmpty ? $0.name : "\($0.name) \($0.value)" }.joined(separator: "; ")
    }

    private static func lines(_ fields: (String, String)...) -> String {
        fields.map { "\r\n\($0.0): \($0.1)" }.joined()
    }
}
