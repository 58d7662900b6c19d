import TailorHTTP
import TailorStore

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

    static func rateLimited(_ what: String, retryAfter: Int) -> HTTPError {
        HTTPError(.tooManyRequests, code: "rate_limited", message: "Too many \(what); try again in \(retryAfter) s.",
                  headers: [HTTPField("Retry-After", String(retryAfter))])
    }

    static let blocked = HTTPError(.forbidden, code: "blocked", message: "This chat is blocked: no message can be sent in it.")

    static func conflict(_ code: String, _ message: String) -> HTTPError {
        HTTPError(.conflict, code: code, message: message)
    }

    static func malformedJSON(_ reason: String) -> HTTPError {
        HTTPError(.badRequest, code: "malformed_json", message: reason)
    }
    static let notJSON = HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: "Send the body as Content-Type: application/json.")
    static let unavailable = HTTPError(.serviceUnavailable, code: "unavailable", message: "The store could not be reached; try again.",
                                       headers: [HTTPField("Retry-After", "1")])
    /// A write that waited for a lock another server's transaction holds:
    /// that server is slow or stopped inside it, and PostgreSQL ends it soon.
    static let locked = HTTPError(.serviceUnavailable, code: "unavailable",
                                  message: "Another server's transaction holds what this write needs; nothing was stored. Try again.",
                                  headers: [HTTPField("Retry-After", "1")])
    static let behind = HTTPError(.serviceUnavailable, code: "behind",
                                  message: "This server has not yet caught up with your last write; try again.",
                                  headers: [HTTPField("Retry-After", "1")])
    static let storageFull = HTTPError(.insufficientStorage, code: "storage_full",
                                       message: "The server's disk is full: nothing was stored. Try again later.",
                                       headers: [HTTPField("Retry-After", "60")])

    /// What a client is told when the store failed: a full disk and a failure
    /// that may pass say when to try again; anything else is the server's own
    /// fault (500).
    static func answer(for failure: any Error) -> HTTPError? {
        if failure is HeldElsewhere { return locked }
        guard let failure = failure as? any DatabaseFailure else { return nil }
        if failure.isStorageFull { return storageFull }
        if failure.isLockWaitTimeout { return locked }
        if failure.mayPass { return unavailable }
        return nil
    }
}
