import Dispatch
import Synchronization

/// How far this server has applied the change feed, and who waits for it to
/// get further: the one record of it, kept by whoever applies the feed (the
/// `CommitFollower` on SQLite, the `FeedFollower` on PostgreSQL).
final class FeedProgress: Sendable {
    private struct State {
        var applied: Int
        /// Answers to give once the feed is applied up to their position.
        var waiting: [(position: Int, ticket: UInt64, answer: @Sendable () -> Void)] = []
        var nextTicket: UInt64 = 0
    }

    private let state: Mutex<State>
    /// Whether other servers write the feed too (PostgreSQL): this server may
    /// then be behind positions that others already answered with.
    let isShared: Bool

    init(applied: Int, isShared: Bool) {
        state = Mutex(State(applied: applied))
        self.isShared = isShared
    }

    var applied: Int { state.withLock { $0.applied } }

    /// The feed is applied up to `position`: answers those waiting for it.
    func advance(to position: Int) {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            state.applied = max(state.applied, position)
            let applied = state.applied
            let due = state.waiting.filter { $0.position <= applied }.map(\.answer)
            state.waiting.removeAll { $0.position <= applied }
            return due
        }
        for answer in due { answer() }
    }

    /// Calls `answer(true)` once the feed is applied up to `position` (at once
    /// when it is), or `answer(false)` after `seconds` if it is not by then:
    /// exactly one of the two. Waits given up leave nothing behind, so that
    /// waits for positions that never come do not pile up. The timer is a
    /// dispatch timer, not a task, so that it fires even when the shared pool
    /// of tasks is busy.
    func whenApplied(_ position: Int, within seconds: Double, _ answer: @escaping @Sendable (Bool) -> Void) {
        let ticket = state.withLock { state -> UInt64? in
            guard state.applied < position else { return nil }
            state.nextTicket += 1
            state.waiting.append((position, state.nextTicket, { answer(true) }))
            return state.nextTicket
        }
        guard let ticket else { return answer(true) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            let givenUp = state.withLock { state -> Bool in
                guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else { return false }
                state.waiting.remove(at: index)
                return true
            }
            if givenUp { answer(false) }
        }
    }

    /// Waits until the feed is applied up to `position`, at most `seconds`;
    /// whether it was.
    func wait(for position: Int, seconds: Double) async -> Bool {
        guard applied < position else { return true }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            whenApplied(position, within: seconds) { continuation.resume(returning: $0) }
        }
    }
}
