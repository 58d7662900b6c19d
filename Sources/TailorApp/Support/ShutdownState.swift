import Synchronization

/// Whether the server has begun to shut down, for answers that change then
/// (`/readyz` says 503 so that a load balancer sends no more).
final class ShutdownState: Sendable {
    private let draining = Atomic(false)

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    func begin() { draining.store(true, ordering: .relaxed) }
}
