import Synchronization
import TailorLoop

/// How far this server has applied the change feed, and who waits for it to
/// get further: the one record of it, kept by whoever applies the feed (the
/// `CommitFollower` on SQLite, the `FeedFollower` on PostgreSQL).
package final class FeedProgress: Sendable {
    private struct Waiting {
        let position: Int
        /// When it is given up (MonotonicClock).
        let deadline: UInt64
        let answer: @Sendable (Bool) -> Void
    }

    private struct State {
        var applied: Int
        /// The latest position this server's own writer committed.
        var committedHere = 0
        /// Answers to give once the feed is applied up to their position.
        var waiting: [Waiting] = []
        /// When the waits past their deadline are next looked for, if a look
        /// is scheduled: one look for all of them, not a timer for each wait
        /// (a timer per batch written was a twentieth of the server's CPU).
        var nextLook: UInt64?
        var looksScheduled = 0
    }

    /// Advanced by the thread that applies the feed, waited on by requests on every loop.
    private let state: Mutex<State>
    /// Whether other servers write the feed too (PostgreSQL): this server may
    /// then be behind positions that others already answered with.
    package let isShared: Bool

    /// Whose timer looks for the waits given up.
    private let timers: EventLoop
    /// Told of the position when a wait begins for one not applied yet: whoever
    /// applies the feed may have news it has not taken yet, or have to read
    /// for it (`FeedFollower`).
    private let waitBegun = WiredLater<@Sendable (Int) -> Void>()

    package init(applied: Int, isShared: Bool, timers: EventLoop) {
        state = Mutex(State(applied: applied))
        self.isShared = isShared
        self.timers = timers
    }

    package var applied: Int { state.withLock { $0.applied } }

    /// Calls `told` with the position each time a wait begins for one not
    /// applied yet, but for this server's own commits.
    package func whenWaitBegins(_ told: @escaping @Sendable (Int) -> Void) {
        waitBegun.wire(told)
    }

    /// The position a write's answer names: what this server applied, or its
    /// own latest commit if that is later (a write answered before its entry
    /// was applied, the database unreachable). Another server waits for it,
    /// so the write is read there.
    package var answered: Int { state.withLock { max($0.applied, $0.committedHere) } }

    /// Looks scheduled so far for waits past their deadline.
    package var looksScheduled: Int { state.withLock { $0.looksScheduled } }

    /// The feed is applied up to `position`: answers those waiting for it.
    package func advance(to position: Int) {
        let due = state.withLock { state -> [@Sendable (Bool) -> Void] in
            state.applied = max(state.applied, position)
            let applied = state.applied
            let due = state.waiting.filter { $0.position <= applied }.map(\.answer)
            state.waiting.removeAll { $0.position <= applied }
            return due
        }
        for answer in due { answer(true) }
    }

    /// Calls `answer(true)` once the feed is applied up to `position` (at once
    /// when it is), or `answer(false)` after `wait` if it is not by then:
    /// exactly one of the two. Waits given up leave nothing behind, so that
    /// waits for positions that never come do not pile up. The look for waits
    /// given up is a timer of a loop (`EventLoop.after`), a task that runs on
    /// that loop's own thread, so that it comes even when the shared pool of
    /// tasks is busy.
    /// `committedHere`: the position is this server's own commit.
    package func whenApplied(_ position: Int, committedHere: Bool = false, within wait: Duration,
                             _ answer: @escaping @Sendable (Bool) -> Void) {
        let deadline = MonotonicClock.after(wait)
        let (appliedAlready, look) = state.withLock { state -> (Bool, UInt64?) in
            if committedHere { state.committedHere = max(state.committedHere, position) }
            guard state.applied < position else { return (true, nil) }
            state.waiting.append(Waiting(position: position, deadline: deadline, answer: answer))
            return (false, Self.scheduleLook(at: deadline, in: &state))
        }
        if appliedAlready { return answer(true) }
        // A commit of this server's own is handed to the follower by its writer.
        if !committedHere { waitBegun.value?(position) }
        if let look { schedule(lookAt: look) }
    }

    /// Waits until the feed is applied up to `position`, at most `wait`;
    /// whether it was.
    package func wait(for position: Int, atMost wait: Duration) async -> Bool {
        guard applied < position else { return true }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            whenApplied(position, within: wait) { continuation.resume(returning: $0) }
        }
    }

    /// The time to schedule a look at, when none is scheduled as early as `time`.
    private static func scheduleLook(at time: UInt64, in state: inout State) -> UInt64? {
        if let next = state.nextLook, next <= time { return nil }
        state.nextLook = time
        state.looksScheduled += 1
        return time
    }

    private func schedule(lookAt time: UInt64) {
        let now = MonotonicClock.now
        let delay = time > now ? Double(time - now) / 1e9 : 0
        timers.after(seconds: delay) { [self] in lookForWaitsGivenUp(scheduledAt: time) }
    }

    /// Gives up the waits past their deadline, and schedules the next look
    /// unless an earlier one took over.
    private func lookForWaitsGivenUp(scheduledAt time: UInt64) {
        let now = MonotonicClock.now
        let (givenUp, look) = state.withLock { state -> ([@Sendable (Bool) -> Void], UInt64?) in
            let givenUp = state.waiting.filter { $0.deadline <= now }.map(\.answer)
            state.waiting.removeAll { $0.deadline <= now }
            guard state.nextLook == time else { return (givenUp, nil) }
            state.nextLook = nil
            guard let earliest = state.waiting.map(\.deadline).min() else { return (givenUp, nil) }
            return (givenUp, Self.scheduleLook(at: earliest, in: &state))
        }
        if let look { schedule(lookAt: look) }
        for answer in givenUp { answer(false) }
    }
}
