import TailorHTTP

/// The API's errors, each with the status and code of API.md.
enum APIError {
    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, code: "unauthorized", message: message)
    }

    static func notFound(_ what: String) -> HTTPError {
        HTTPError(.notFound, code: "not_found", message: "There is no \(what) with this id for you.")
    }

    static func invalid(_ message: String) -> HTTPError {
        HTTPError(.unprocessableContent, code: "invalid_fields", message: message)
    }

    static func invalidQuery(_ message: String) -> HTTPError {
        HTTPError(.unprocessableContent, code: "invalid_query", message: message)
    }

    static func conflict(_ code: String, _ message: String) -> HTTPError {
        HTTPError(.conflict, code: code, message: message)
    }

    static let malformedJSON = HTTPError(.badRequest, code: "malformed_json", message: "The body is not valid JSON.")
    static let notJSON = HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as Content-Type: application/json.")
    static let unavailable = HTTPError(.serviceUnavailable, code: "unavailable", message: "The store could not be reached; try again.")
}
