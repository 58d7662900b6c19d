/// Why a request could not be read: the status to answer with and the JSON error's
/// code and message. After any of these the connection is closed, since the
/// stream's framing can no longer be trusted.
public struct HTTPParseError: Error, Equatable, Sendable {
    public let status: HTTPStatus
    public let code: String
    public let message: String

    public init(_ status: HTTPStatus, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func malformed(_ message: String) -> HTTPParseError {
        HTTPParseError(.badRequest, "malformed_request", message)
    }

    static let requestLineTooLong = HTTPParseError(.uriTooLong, "uri_too_long", "The request line is longer than the server accepts.")
    static let headersTooLarge = HTTPParseError(.headersTooLarge, "headers_too_large", "The request's header fields are larger than the server accepts.")
    static let tooManyHeaders = HTTPParseError(.headersTooLarge, "headers_too_large", "The request has more header fields than the server accepts.")
    static let bodyTooLarge = HTTPParseError(.contentTooLarge, "body_too_large", "The request body is larger than the server accepts.")
}
