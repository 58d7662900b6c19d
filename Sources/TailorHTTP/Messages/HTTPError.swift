/// An error a handler throws to answer with a status and the API's JSON error:
/// `{"error": {"code": "snake_case_code", "message": "human text"}}`.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: HTTPStatus
    public var code: String
    public var message: String
    public var headers: [HTTPField]

    public init(_ status: HTTPStatus, code: String, message: String, headers: [HTTPField] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public init(_ error: HTTPParseError) {
        self.init(error.status, code: error.code, message: error.message)
    }

    public var response: HTTPResponse {
        var response = HTTPResponse.json(
            #"{"error":{"code":"# + JSONText.quoted(code) + #","message":"# + JSONText.quoted(message) + "}}",
            status: status)
        response.headers += headers
        return response
    }

    public static func notFound(_ message: String = "Nothing is found at this address.") -> HTTPError {
        HTTPError(.notFound, code: "not_found", message: message)
    }

    public static func methodNotAllowed(allowed: [HTTPMethod]) -> HTTPError {
        let names = allowed.map(\.description).joined(separator: ", ")
        return HTTPError(.methodNotAllowed, code: "method_not_allowed",
                         message: "This address accepts \(names).", headers: [HTTPField("Allow", names)])
    }

    public static let internalError = HTTPError(.internalServerError, code: "internal_error", message: "The server failed to answer this request.")
    public static let overloaded = HTTPError(.serviceUnavailable, code: "overloaded", message: "The server has too many connections; try again shortly.")
    public static let timedOut = HTTPError(.requestTimeout, code: "request_timeout", message: "The request did not arrive in time.")
}
