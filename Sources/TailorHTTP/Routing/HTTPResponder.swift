import Logging

/// Turns a request into a response: the router first, then the fallback (static
/// files) for paths no route knows, and errors rendered as the API's JSON.
/// Every 5xx answer is logged with its cause.
public struct HTTPResponder: Sendable {
    public var router: Router
    /// Answers paths that no route matches; nil answers 404.
    public var fallback: Router.Handler?
    /// What a route's handler would refuse from the head alone (no credentials),
    /// asked before a body the client holds back for `100 Continue`.
    public var admission: (@Sendable (HTTPRequest) -> HTTPError?)?
    /// The answer to an error a handler threw that is not an `HTTPError` (the
    /// application knows its store's errors: a full disk, a busy database);
    /// nil answers 500.
    public var answerForFailure: (@Sendable (any Error) -> HTTPError?)?
    /// Runs around every route's handler (not the fallback): may wait before
    /// it, or add to its answer.
    public var around: (@Sendable (HTTPRequest, Router.Handler) async throws -> HTTPResponse)?
    private let failures: ThrottledLog

    public init(router: Router, fallback: Router.Handler? = nil, admission: (@Sendable (HTTPRequest) -> HTTPError?)? = nil,
                answerForFailure: (@Sendable (any Error) -> HTTPError?)? = nil,
                around: (@Sendable (HTTPRequest, Router.Handler) async throws -> HTTPResponse)? = nil,
                logger: Logger = Logger(label: "tailor.http")) {
        self.router = router
        self.fallback = fallback
        self.admission = admission
        self.answerForFailure = answerForFailure
        self.around = around
        failures = ThrottledLog(logger: logger)
    }

    /// The final answer when the head alone decides it: an unknown route, a
    /// wrong method, or a request the admission refuses. A client that waits
    /// for `100 Continue` then hears it without sending the body (RFC 9110 §10.1.1).
    public func answerBeforeBody(_ head: HTTPRequestHead) -> HTTPResponse? {
        switch router.match(head.method, path: head.path) {
        case .methodNotAllowed(let allowed): return HTTPError.methodNotAllowed(allowed: allowed).response
        case .notFound: return fallback == nil ? HTTPError.notFound().response : nil
        case .handler: return admission?(HTTPRequest(head: head))?.response
        }
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var request = request
        let handler: Router.Handler
        switch router.match(request.method, path: request.path) {
        case .handler(let found, let parameters):
            request.parameters = parameters
            if let around {
                handler = { request in try await around(request, found) }
            } else {
                handler = found
            }
        case .methodNotAllowed(let allowed):
            return HTTPError.methodNotAllowed(allowed: allowed).response
        case .notFound:
            guard let fallback else { return HTTPError.notFound().response }
            handler = fallback
        }
        do {
            return try await handler(request)
        } catch let error as HTTPError {
            if error.status.code >= 500 {
                failures.log("\(request.method) \(request.path) answered \(error.status.code) \(error.code): \(error.message)")
            }
            return error.response
        } catch {
            let answer = answerForFailure?(error) ?? .internalError
            failures.log("\(request.method) \(request.path) answered \(answer.status.code) \(answer.code): \(error)")
            return answer.response
        }
    }
}
