import TailorHTTP

/// `GET /healthz`: the process is up and its loops answer.
enum HealthRoutes {
    static func register(on router: inout Router) {
        let healthy = CachedRepresentation(Array(#"{"status":"ok"}"#.utf8), contentType: HTTPResponse.jsonContentType)
        router.get("/healthz") { request in healthy.response(to: request) }
    }
}
