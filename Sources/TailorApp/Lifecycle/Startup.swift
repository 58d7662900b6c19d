import Dispatch
import Synchronization

/// Whether every part of the server has started, for the one caller that
/// waits: `Application.start` returns once all have, or throws the first failure.
final class Startup: Sendable {
    private struct State {
        var waitingFor: Set<String>
        var failure: PartFailure?
        var settled = false
    }

    /// A part that could not start, and why.
    struct PartFailure: Error, CustomStringConvertible {
        let part: String
        let error: any Error

        var description: String { "\(part) could not start: \(error)" }
    }

    /// Told by each part's service on the lifecycle's thread, read by the thread that waits.
    private let state: Mutex<State>
    private let settled = DispatchSemaphore(value: 0)

    init(parts: [String]) {
        state = Mutex(State(waitingFor: Set(parts)))
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

    /// Blocks until every part started, or one failed: then throws why.
    func wait() throws(PartFailure) {
        settled.wait()
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// Changes the state; the waiter goes on the first time `change` says it may.
    private func settle(_ change: (inout State) -> Bool) {
        let wakes = state.withLock { state in
            guard change(&state), !state.settled else { return false }
            state.settled = true
            return true
        }
        if wakes { settled.signal() }
    }
}
