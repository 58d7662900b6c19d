import Logging
import Synchronization
import TailorHTTP

/// `GET /healthz`: the process is up and its loops answer (liveness).
/// `GET /readyz`: it can do its work: a write commits within `readyTimeout`
/// and it is not shutting down (readiness, for a load balancer).
struct HealthRoutes {
    let events: EventRouter
    let shutdown: ShutdownState
    let logger: Logger

    /// Seconds a readiness write may take before the answer is 503.
    static let readyTimeout = 2.0

    func register(on router: inout Router) {
        let healthy = CachedRepresentation(Array(#"{"status":"ok"}"#.utf8), contentType: HTTPResponse.jsonContentType)
        router.get("/healthz") { request in healthy.response(to: request) }
        router.get("/readyz") { _ in try await ready() }
    }

    private func ready() async throws -> HTTPResponse {
        guard !shutdown.isDraining else { throw Self.notReady("The server is shutting down.") }
        let events = events
        switch await withDeadline(seconds: Self.readyTimeout, { await Result { try await events.checkWrites() } }) {
        case .success?:
            return HTTPResponse.json(#"{"status":"ready"}"#)
        case .failure(let error)?:
            throw Self.notReady("The database does not take writes: \(error)")
        case nil:
            throw Self.notReady("A write did not commit within \(Self.readyTimeout) seconds.")
        }
    }

    private static func notReady(_ message: String) -> HTTPError {
        HTTPError(.serviceUnavailable, code: "not_ready", message: message, headers: [HTTPField("Retry-After", "1")])
    }
}

/// `body`'s result, or nil when it takes longer than `seconds`; `body` then
/// goes on by itself and its result is dropped.
func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let waiting = Mutex<CheckedContinuation<T?, Never>?>(continuation)
        let answer: @Sendable (T?) -> Void = { value in waiting.withLock { $0.take() }?.resume(returning: value) }
        Task { answer(await body()) }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            answer(nil)
        }
    }
}
