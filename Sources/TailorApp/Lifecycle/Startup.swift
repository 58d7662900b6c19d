import Dispatch
import Synchronization

/// Where the server's parts are in their life, for `Lifecycle`: not started,
/// starting (which parts have started, or the first that could not), running,
/// stopped. The one caller of `start` waits here until every part has
/// started or one failed.
final class Startup: Sendable {
    private enum Phase {
        case notStarted, starting, running, stopped
    }

    private struct State {
        var phase = Phase.notStarted
        var waitingFor: Set<String>
        var failure: PartFailure?
    }

    /// A part that could not start, and why.
    struct PartFailure: Error, CustomStringConvertible {
        let part: String
        let error: any Error

        var description: String { "\(part) could not start: \(error)" }
    }

    /// Told by each part's service on the lifecycle's thread; read by the
    /// threads that start and shut down (a command's main thread, a signal, a test).
    private let state: Mutex<State>
    private let settled = DispatchSemaphore(value: 0)

    init(parts: [String]) {
        state = Mutex(State(waitingFor: Set(parts)))
    }

    /// The parts are to start; false when they were started before.
    func begin() -> Bool {
        state.withLock { state in
            guard case .notStarted = state.phase else { return false }
            state.phase = .starting
            return true
        }
    }

    func started(_ part: String) {
        settle { state in
            state.waitingFor.remove(part)
            return state.waitingFor.isEmpty
        }
    }

    func failed(_ part: String, _ error: any Error) {
        settle { state in
            if state.failure == nil { state.failure = PartFailure(part: part, error: error) }
            return true
        }
    }

    /// Blocks until every part started, or one failed: then throws why (and
    /// the parts count as stopped).
    func wait() throws(PartFailure) {
        settled.wait()
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// The parts are to stop; false when they are not starting or running
    /// (never started, failed to, or stopped before).
    func end() -> Bool {
        state.withLock { state in
            defer { state.phase = .stopped }
            switch state.phase {
            case .starting, .running: return true
            case .notStarted, .stopped: return false
            }
        }
    }

    /// Changes the state; the waiter goes on the first time `change` says it
    /// may, with the parts running unless one failed.
    private func settle(_ change: (inout State) -> Bool) {
        let wakes = state.withLock { state in
            guard change(&state), case .starting = state.phase else { return false }
            state.phase = state.failure == nil ? .running : .stopped
            return true
        }
        if wakes { settled.signal() }
    }
}
