import Synchronization
import TailorLoop

/// One share of the users, on one event loop: their streams, the state that
/// serves them (`Lane.State`), and the work handed over for them, which the
/// lane's passes publish (`EventStreams+Passes`).
///
/// A user's streams live on their lane's loop (their sockets are moved there
/// once their heads are written), so a pass queues an event on a stream and
/// writes it on one thread, as a NIO channel's state belongs to its event
/// loop. The state is touched only there; every call from another thread
/// (the feed's, a request's loop, the tickers, shutdown) is a job on the loop.
/// The one thing other threads touch is the inbox, where the feed hands over
/// each commit's changes without waiting for the loop.
package final class Lane: Sendable {
    package let index: Int
    package let loop: EventLoop
    /// Touched only on `loop`, so it needs no lock.
    private let stored: ThreadConfined<State>
    /// What waits for the next pass: shared with every thread that hands work over.
    private let inbox = Mutex(LaneInbox())
    /// Counts kept beside the state for threads that only read them (metrics).
    let streamCount = Atomic<Int>(0)
    let followedKeyCount = Atomic<Int>(0)

    init(index: Int, loop: EventLoop, state: consuming State) {
        self.index = index
        self.loop = loop
        stored = ThreadConfined(state)
    }

    // MARK: - The state, on the loop

    /// Runs `body` on the state; call on the lane's loop.
    func with<Result>(_ body: (inout State) -> Result) -> Result {
        assert(loop.inLoopThread, "a lane's state touched off its loop")
        return stored.withValue { state in
            let result = body(&state)
            streamCount.store(state.subscribers.count, ordering: .relaxed)
            followedKeyCount.store(state.subscribers.followedKeyCount, ordering: .relaxed)
            return result
        }
    }

    /// Runs `body` on the state in a job of the lane's loop, after the
    /// work queued there before; never at once, so that it may be asked
    /// for from inside `with` (a stream ending while a pass queues to it).
    func later(_ body: @escaping @Sendable (inout State) -> Void) {
        loop.execute { [self] in with(body) }
    }

    /// What `body` finds in the state, from any task: at once on the
    /// lane's loop, else after a hop there.
    func ask<Result: Sendable>(_ body: @escaping @Sendable (inout State) -> Result) async -> Result {
        if loop.inLoopThread { return with(body) }
        return await withUnsafeContinuation { answer in
            loop.execute { [self] in answer.resume(returning: with(body)) }
        }
    }

    /// What `body` finds in the state, for a thread that may block and is
    /// not a loop's (the signal handler, shutdown).
    func askAndWait<Result: Sendable>(_ body: @escaping @Sendable (inout State) -> Result) -> Result {
        let answer = Mutex<Result?>(nil)
        loop.executeAndWait { [self] in
            let found = with(body)
            answer.withLock { $0 = found }
        }
        return answer.withLock { $0! }
    }

    // MARK: - The inbox, from any thread

    /// Adds to what waits for the next pass; `update` says whether what it
    /// added needs a pass. True when it does and none is going or due: the
    /// caller must start them (`EventStreams.startPasses`).
    func hand(_ update: (inout LaneInbox) -> Bool) -> Bool {
        inbox.withLock { inbox in
            guard update(&inbox), !inbox.passScheduled else { return false }
            inbox.passScheduled = true
            return true
        }
    }

    /// What waits, taken for a pass; nil when nothing does, and the passes stop.
    func takeWork() -> LaneInbox? {
        inbox.withLock { inbox in
            guard inbox.hasWork else {
                inbox.passScheduled = false
                return nil
            }
            return inbox.takeWork(passScheduled: true)
        }
    }

    /// A stream of `user` opens: their work no longer waits. Returns the
    /// quiet work waiting when no pass is going or due, taken for the
    /// caller to log before it looks at the log (`State.logQuietWork`).
    /// Under the inbox's lock, as every hand-over is: one that found the
    /// user not followed came before, and is in what is taken.
    func follow(_ user: Int) -> LaneInbox? {
        inbox.withLock { inbox in
            inbox.followers[user, default: 0] += 1
            guard !inbox.passScheduled, inbox.hasWork else { return nil }
            return inbox.takeWork(passScheduled: false)
        }
    }

    /// A stream of `user` ended.
    func unfollow(_ user: Int) {
        inbox.withLock { inbox in
            guard let count = inbox.followers[user] else { return }
            inbox.followers[user] = count > 1 ? count - 1 : nil
        }
    }
}
