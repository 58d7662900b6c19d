import Logging
import TailorLoop

/// Turns a request into a response: the router first, then the fallback (static
/// files) for paths no route knows, and errors rendered as the API's JSON.
/// Every 5xx answer is logged with its cause.
public struct HTTPResponder: Sendable {
    public var router: Router
    /// Answers paths that no route matches; nil answers 404.
    public var fallback: Router.Handler?
    /// What a route's handler would refuse from the head alone (no credentials),
    /// asked before a body the client holds back for `100 Continue`.
    public var admission: (@Sendable (HTTPRequest) async -> HTTPError?)?
    /// The answer to an error a handler threw that is not an `HTTPError` (the
    /// application knows its store's errors: a full disk, a busy database);
    /// nil answers 500.
    public var answerForFailure: (@Sendable (any Error) -> HTTPError?)?
    /// What runs around a route's handler: may wait before it, or add to its answer.
    public typealias Around = @Sendable (HTTPRequest, Router.Handler) async throws -> HTTPResponse
    /// Runs around every route's handler (not the fallback).
    public var around: Around?
    /// Told of every answer (`Answered`).
    public var observe: (@Sendable (Answered) -> Void)?
    /// Whether each answer is written to a log (an access log): then every
    /// request gets an id and notes, which cost too much to make for nothing.
    public var logsEachRequest: Bool
    /// Proxies whose forwarded client address and scheme are believed.
    public var proxyTrust: ProxyTrust
    /// Origins whose pages may call this API (CORS).
    public var crossOrigin: CrossOrigin
    private let requestIDs = RequestIDs()

    /// One request answered.
    public struct Answered: Sendable {
        public let request: HTTPRequest
        /// The route it matched: its pattern, `static` for the fallback's, `unmatched` for none.
        public let route: String
        public let status: HTTPStatus
        /// From the parsed request to its answer.
        public let nanoseconds: UInt64
    }
    private let failures: ThrottledLog

    public init(router: Router, fallback: Router.Handler? = nil, admission: (@Sendable (HTTPRequest) async -> HTTPError?)? = nil,
                answerForFailure: (@Sendable (any Error) -> HTTPError?)? = nil,
                around: Around? = nil,
                observe: (@Sendable (Answered) -> Void)? = nil, logsEachRequest: Bool = false,
                proxyTrust: ProxyTrust = ProxyTrust(), crossOrigin: CrossOrigin = CrossOrigin(),
                logger: Logger = Logger(label: "tailor.http")) {
        self.router = router
        self.fallback = fallback
        self.admission = admission
        self.answerForFailure = answerForFailure
        self.around = around
        self.observe = observe
        self.logsEachRequest = logsEachRequest
        self.proxyTrust = proxyTrust
        self.crossOrigin = crossOrigin
        failures = ThrottledLog(logger: logger)
    }

    /// The final answer when the head alone decides it: an unknown route, a
    /// wrong method, or a request the admission refuses. A client that waits
    /// for `100 Continue` then hears it without sending the body (RFC 9110 §10.1.1).
    public func answerBeforeBody(_ head: HTTPRequestHead) async -> HTTPResponse? {
        switch router.match(head.method, path: head.path) {
        case .methodNotAllowed(let allowed): return HTTPError.methodNotAllowed(allowed: allowed).response
        case .notFound: return fallback == nil ? HTTPError.notFound().response : nil
        case .handler: return await admission?(HTTPRequest(head: head))?.response
        }
    }

    /// An answer given from the head alone (a body too large or too slow, a
    /// refusal before it), with the CORS fields an allowed origin needs to
    /// read it.
    public func crossOriginFields(on response: HTTPResponse, for head: HTTPRequestHead) -> HTTPResponse {
        crossOrigin.decorate(response, for: HTTPRequest(head: head))
    }

    /// The answer: for the client a trusted proxy forwarded (`ProxyTrust`),
    /// with the CORS fields an allowed origin needs (`CrossOrigin`).
    public func respond(to request: consuming HTTPRequest) async -> HTTPResponse {
        (request.client, request.isSecure) = proxyTrust.client(of: request)
        guard crossOrigin.isEnabled else { return await respondWithID(to: request) }
        if let preflight = crossOrigin.preflight(request) { return preflight }
        return crossOrigin.decorate(await respondWithID(to: copy request), for: request)
    }

    /// The answer, told to the observer. Its `X-Request-ID` is the client's
    /// (when usable); else one made here when each request is logged or the
    /// answer is a 5xx: an id is made where something records it.
    private func respondWithID(to request: consuming HTTPRequest) async -> HTTPResponse {
        request.id = requestIDs.given(in: request)
        if logsEachRequest {
            request.id = request.id ?? requestIDs.next()
            request.notes = RequestNotes()
        }
        let start = MonotonicClock.now
        var (response, route, failure) = await answer(&request)
        let nanoseconds = MonotonicClock.now - start
        if let failure {
            // A 5xx: logged once, with its cause and the request's id (made now if it has none).
            let id = request.id ?? requestIDs.next()
            request.id = id
            failures.log("\(request.method) \(request.path) answered \(failure) (request \(id))", metadata: [
                "request": "\(id)", "route": "\(route)", "status": "\(response.status.code)",
                "ms": "\(Double(nanoseconds / 1_000) / 1_000)", "user": "\(request.notes?.userID.map(String.init) ?? "-")",
            ])
        }
        response.requestID = response.requestID ?? request.id
        observe?(Answered(request: consume request, route: route, status: response.status, nanoseconds: nanoseconds))
        return response
    }

    /// The answer, the route it came from, and for a 5xx its cause. The
    /// request is taken in place (its path's parameters are added): a copy
    /// of it retains and releases every field it holds.
    private func answer(_ request: inout HTTPRequest) async -> (response: HTTPResponse, route: String, failure: String?) {
        switch router.match(request.method, path: request.path) {
        case .handler(let found, let parameters, let pattern):
            request.parameters = parameters
            let (response, failure) = await run(found, around: around, for: request)
            return (response, pattern, failure)
        case .methodNotAllowed(let allowed):
            return (HTTPError.methodNotAllowed(allowed: allowed).response, Self.unmatched, nil)
        case .notFound:
            guard let fallback else { return (HTTPError.notFound().response, Self.unmatched, nil) }
            let (response, failure) = await run(fallback, around: nil, for: request)
            return (response, Self.staticFiles, failure)
        }
    }

    /// The route names of answers no registered route gave.
    public static let unmatched = "unmatched"
    public static let staticFiles = "static"

    /// The handler's answer, through `around` when given; for a 5xx, what caused it.
    private func run(_ handler: Router.Handler, around: Around?,
                     for request: HTTPRequest) async -> (HTTPResponse, failure: String?) {
        do {
            if let around { return (try await around(request, handler), nil) }
            return (try await handler(request), nil)
        } catch let error as HTTPError {
            return (error.response, error.status.code >= 500 ? "\(error.status.code) \(error.code): \(error.message)" : nil)
        } catch {
            let answer = answerForFailure?(error) ?? .internalError
            return (answer.response, "\(answer.status.code) \(answer.code): \(error)")
        }
    }
}
