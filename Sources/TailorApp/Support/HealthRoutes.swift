import TailorHTTP

/// `GET /healthz`: the process is up and its loops answer (liveness).
/// `GET /readyz`: it can do its work: a write commits within `readyTimeout`
/// and it is not shutting down (readiness, for a load balancer). The write is
/// made at most once a second (`ReadinessProbe`).
struct HealthRoutes {
    let shutdown: ShutdownState
    let probe: ReadinessProbe

    init(events: EventRouter, shutdown: ShutdownState) {
        self.shutdown = shutdown
        probe = ReadinessProbe { await events.checkWrites(within: Self.readyTimeout) }
    }

    /// Seconds a readiness write may take before the answer is 503.
    static let readyTimeout = 2.0

    func register(on router: inout Router) {
        let healthy = CachedRepresentation(Array(#"{"status":"ok"}"#.utf8), contentType: HTTPResponse.jsonContentType)
        router.get("/healthz") { request in healthy.response(to: request) }
        router.get("/readyz") { _ in try await ready() }
    }

    private func ready() async throws -> HTTPResponse {
        guard !shutdown.isDraining else { throw Self.notReady("The server is shutting down.") }
        switch await probe.ready() {
        case .committed:
            return HTTPResponse.json(#"{"status":"ready"}"#)
        case .failed(let error):
            throw Self.notReady("The database does not take writes: \(error)")
        case .timedOut:
            throw Self.notReady("A write did not commit within \(Self.readyTimeout) seconds.")
        }
    }

    private static func notReady(_ message: String) -> HTTPError {
        HTTPError(.serviceUnavailable, code: "not_ready", message: message, headers: [HTTPField("Retry-After", "1")])
    }
}
