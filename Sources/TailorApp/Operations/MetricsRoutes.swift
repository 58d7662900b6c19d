import TailorHTTP

/// `GET /metrics`: the server's figures in Prometheus's text format.
///
/// On the main port, without credentials: it needs no second listener, and
/// it tells nothing about users (labels are route patterns, status classes
/// and stage names). An operator who does not want it public refuses
/// `/metrics` at the proxy in front (with nginx, `location = /metrics { deny all; }`).
struct MetricsRoutes {
    let metrics: ServerMetrics
    /// What is read at each scrape.
    let sample: @Sendable () -> ServerMetrics.Sample

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    func register(on router: inout Router) {
        router.get("/metrics") { [metrics, sample] _ in
            var response = HTTPResponse(status: .ok, headers: [HTTPField("Content-Type", Self.contentType)], body: .init(metrics.exposition(sample())))
            response.kind = .unstored
            return response
        }
    }
}
