import Synchronization
import TailorLoop
import TailorStreams

/// `/readyz`'s proof that writes commit, made at most once per `interval`
/// however often it is asked: a load balancer, or anyone, asking thousands of
/// times a second would otherwise put a commit per request on the writer,
/// ahead of the users' writes. Askers within the interval of the last check
/// get its answer; askers while a check runs wait for that one.
final class ReadinessProbe: Sendable {
    typealias Check = @Sendable () async -> EventRouter.WriteCheck

    private struct State {
        var last: (check: EventRouter.WriteCheck, at: UInt64)?
        /// Askers waiting for the check under way, when one is.
        var waiting: [CheckedContinuation<EventRouter.WriteCheck?, Never>]?
    }

    /// Nanoseconds an answer is given again.
    let interval: UInt64
    private let check: Check
    private let now: @Sendable () -> UInt64
    /// Asked by probes on every loop at once, which share one check.
    private let state = Mutex(State())

    init(interval: UInt64 = 1_000_000_000, now: @escaping @Sendable () -> UInt64 = { MonotonicClock.now }, check: @escaping Check) {
        self.interval = interval
        self.now = now
        self.check = check
    }

    func ready() async -> EventRouter.WriteCheck {
        let time = now()
        let recent: EventRouter.WriteCheck? = state.withLock { state in
            guard let last = state.last, time &- last.at < interval else { return nil }
            return last.check
        }
        if let recent { return recent }
        // The first asker makes the check in its own task (a task made for it
        // could wait behind a busy pool); the others wait for its answer.
        let answered: EventRouter.WriteCheck? = await withCheckedContinuation { continuation in
            let checks = state.withLock { state -> Bool in
                guard state.waiting == nil else {
                    state.waiting?.append(continuation)
                    return false
                }
                state.waiting = []
                return true
            }
            if checks { continuation.resume(returning: nil) }
        }
        if let answered { return answered }
        let result = await check()
        let waiting = state.withLock { state in
            state.last = (result, now())
            defer { state.waiting = nil }
            return state.waiting ?? []
        }
        for asker in waiting { asker.resume(returning: result) }
        return result
    }
}
