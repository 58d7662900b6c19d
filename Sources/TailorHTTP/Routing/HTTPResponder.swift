/// Turns a request into a response: the router first, then the fallback (static
/// files) for paths no route knows, and errors rendered as the API's JSON.
public struct HTTPResponder: Sendable {
    public var router: Router
    /// Answers paths that no route matches; nil answers 404.
    public var fallback: Router.Handler?

    public init(router: Router, fallback: Router.Handler? = nil) {
        self.router = router
        self.fallback = fallback
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var request = request
        let handler: Router.Handler
        switch router.match(request.method, path: request.path) {
        case .handler(let found, let parameters):
            request.parameters = parameters
            handler = found
        case .methodNotAllowed(let allowed):
            return HTTPError.methodNotAllowed(allowed: allowed).response
        case .notFound:
            guard let fallback else { return HTTPError.notFound().response }
            handler = fallback
        }
        do {
            return try await handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch {
            return HTTPError.internalError.response
        }
    }
}
