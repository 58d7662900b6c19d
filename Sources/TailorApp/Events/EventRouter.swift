import Glibc
import Logging
import Synchronization
import TailorDomain
import TailorFeed
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews

/// The one entry point for changes: applies events in one total order on the
/// single writer connection, records what they changed in the change feed in
/// the same transaction, then hands the feed's new entry to whoever applies
/// the feed to this server (`FeedApplier`), and answers once it is applied.
///
/// Events that arrive while a batch is being written wait and are written together
/// as the next batch, in one transaction (group commit): under load one commit
/// serves many events, and when events come close together the writer waits a
/// moment for more before it takes a batch (`GroupCommit`). On PostgreSQL the
/// messages and read marks of a batch go to the server in one round trip, and
/// its feed entry and commit in one more. One refused event leaves the rest of
/// its batch alone: a batch is written first with its events side by side, and
/// only when one of them is refused is it undone and written again with each
/// event in a savepoint of its own. Refusals are rare, and savepoints cost two more round
/// trips per event on PostgreSQL. A source is answered only after the batch
/// holding its event is committed.
public final class EventRouter: Sendable {
    private struct Pending: Sendable {
        let event: Event
        let continuation: CheckedContinuation<EventOutcome, any Error>
    }

    private struct Queue {
        var pending: [Pending] = []
        var writing = false
    }

    /// The next batch: every loop and task that writes adds to it, the writer's thread takes it.
    private let queue = Mutex(Queue())
    private let writerThread = SerialThread(name: "writer")
    let writer: ThreadConfined<WriterConnection>
    private let groupCommit: GroupCommit
    /// The servers following the database now, this one included (`GroupCommit`).
    private let servers: @Sendable () -> Int
    let now: @Sendable () -> Int
    let quotas: Quotas
    let pushDelay: Int
    private let feed: FeedApplier
    private let slowCommits = ThrottledLog(logger: Logger(label: "tailor.writer"), level: .warning)
    private let conflicts = Logger(label: "tailor.writer")
    private let lockWaits = ThrottledLog(logger: Logger(label: "tailor.writer"), level: .warning)

    /// The largest batch written in one transaction.
    static let maxBatch = 512
    /// Times a batch is written before a conflict with other servers'
    /// transactions (a deadlock, a serialization failure) fails its events.
    /// Chat locks are taken in one order, so a conflict is rare: each one is
    /// logged.
    static let attemptsPerBatch = 5
    /// How long a batch waits for a lock when written again after a lock
    /// wait ran out, and every batch for a while after (`ChatsHeldElsewhere`):
    /// long enough for a healthy transaction to commit, short enough that an
    /// event stuck behind another server's open transaction holds the rest of
    /// its batch only briefly.
    static let lockWaitAfterTimeout: Duration = .milliseconds(100)
    /// Whose timer gives up a readiness write that does not commit in time.
    private let timers: EventLoop
    /// Told of every batch written: how many events, and the nanoseconds it took to write and commit.
    private let observeBatch: @Sendable (_ events: Int, _ nanoseconds: UInt64) -> Void

    init(writer: any DatabaseConnection, now: @escaping @Sendable () -> Int, quotas: Quotas, pushDelay: Int, feedWindow: Int,
         commitDelay: Duration, idleTransactionTimeout: Duration, servers: @escaping @Sendable () -> Int = { 1 },
         feed: FeedApplier, announcement: FeedAnnouncement? = nil, timers: EventLoop,
         observeBatch: @escaping @Sendable (_ events: Int, _ nanoseconds: UInt64) -> Void = { _, _ in }) throws {
        self.observeBatch = observeBatch
        self.timers = timers
        let origin = if case .follower(let follower) = feed { follower.origin } else { "" }
        self.writer = ThreadConfined(try WriterConnection(writer, feedWindow: feedWindow, origin: origin, announcement: announcement,
                                                          heldElsewhere: ChatsHeldElsewhere(idleTransactionTimeout: idleTransactionTimeout)))
        groupCommit = GroupCommit(delay: MonotonicClock.nanoseconds(commitDelay))
        self.servers = servers
        self.now = now
        self.quotas = quotas
        self.pushDelay = pushDelay
        self.feed = feed
    }

    /// Applies `event` and returns its outcome once it is committed.
    func route(_ event: Event) async throws -> EventOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let startWriter = queue.withLock { queue -> Bool in
                queue.pending.append(Pending(event: event, continuation: continuation))
                guard !queue.writing else { return false }
                queue.writing = true
                return true
            }
            if startWriter { writerThread.async { self.writeBatches() } }
        }
    }

    /// How long the writer rests after a batch now, for `/metrics`.
    var rest: Duration {
        .nanoseconds(groupCommit.rest(waiting: 0, servers: servers()))
    }

    /// What a readiness write came to.
    enum WriteCheck: Sendable {
        case committed
        case failed(any Error)
        /// The writer did not get to it in time: stuck, or far behind.
        case timedOut
    }

    /// Commits a small write on the writer's thread, behind the events waiting
    /// there: proof that the database takes writes and that the writer runs.
    /// The timer is a loop's (`EventLoop.after`), a task on that loop's own
    /// thread, so that it fires even when the shared pool of tasks is busy.
    func checkWrites(within seconds: Double) async -> WriteCheck {
        await withCheckedContinuation { (continuation: CheckedContinuation<WriteCheck, Never>) in
            // Answered once, by the writer's thread or by the timer's loop, whichever is first.
            let waiting = Mutex<CheckedContinuation<WriteCheck, Never>?>(continuation)
            let answer: @Sendable (WriteCheck) -> Void = { check in waiting.withLock { $0.take() }?.resume(returning: check) }
            writerThread.async { [self] in
                do {
                    try writer.value.connection.transaction { try Store(writer.value.connection).recordReadiness(at: now()) }
                    answer(.committed)
                } catch {
                    answer(.failed(error))
                }
            }
            timers.after(seconds: seconds) { answer(.timedOut) }
        }
    }

    /// After the last event, on the way out (see `DatabaseConnection.finishWriting`),
    /// once every entry committed is applied.
    func finish() throws {
        try writerThread.sync { [writer] in try writer.value.connection.finishWriting() }
        if case .ownThread(let commits) = feed { commits.finish() }
    }

    /// Commits slower than this are logged: every request of the batch waited for it.
    static let slowCommit: Duration = .milliseconds(50)

    /// Tells the observer of a batch, and logs it if it was slow.
    private func note(_ events: Int, since started: UInt64) {
        let nanoseconds = MonotonicClock.now - started
        observeBatch(events, nanoseconds)
        guard nanoseconds >= MonotonicClock.nanoseconds(Self.slowCommit) else { return }
        slowCommits.log("a batch of \(events) events took \(nanoseconds / 1_000_000) ms to write and commit")
    }

    /// Writes batches until no event waits, resting after each so that the
    /// events arriving meanwhile share the next commit (`GroupCommit`).
    private func writeBatches() {
        while true {
            let batch = queue.withLock { queue -> [Pending] in
                let taken = Array(queue.pending.prefix(Self.maxBatch))
                queue.pending.removeFirst(taken.count)
                if taken.isEmpty { queue.writing = false }
                return taken
            }
            if batch.isEmpty { return }
            write(batch)
            let rest = groupCommit.rest(waiting: queue.withLock { $0.pending.count }, servers: servers())
            if rest > 0 { usleep(UInt32(rest / 1000)) }
        }
    }

    private func write(_ batch: [Pending]) {
        let events = batch.map(\.event)
        let started = MonotonicClock.now
        defer { note(batch.count, since: started) }
        var attempts = BatchAttempts(size: batch.count, maxAttempts: Self.attemptsPerBatch)
        var results: [Result<EventOutcome, any Error>] = []
        var entry: FeedEntry?
        while true {
            do {
                (results, entry) = try attempt(events, as: attempts)
                break
            } catch {
                writer.value.feed.rolledBack()
                let failure = Self.failure(of: error)
                switch attempts.failed(failure) {
                case .writeAgain:
                    noteWrittenAgain(after: failure, error, size: batch.count, attempt: attempts.attempt)
                case .answerTheRefusal:
                    batch[0].continuation.resume(throwing: (error as? RefusedBesideOthers)?.error ?? error)
                    return
                case .failEveryEvent:
                    for pending in batch { pending.continuation.resume(throwing: (error as? RefusedBesideOthers)?.error ?? error) }
                    return
                }
            }
        }
        answer(batch, with: results, once: entry)
    }

    /// Logs why a batch is written again; after a lock wait, the writer's
    /// waits are brief for a while (`ChatsHeldElsewhere`).
    private func noteWrittenAgain(after failure: BatchAttempts.Failure, _ error: any Error, size: Int, attempt: Int) {
        switch failure {
        case .lockWaitRanOut:
            writer.value.heldElsewhere.lockWaitRanOut()
            lockWaits.log("a batch of \(size) events is written again, each alone, after a lock wait ran out: \(error)")
        case .conflictWithAnotherTransaction:
            conflicts.warning("a batch of \(size) events is written again (attempt \(attempt) of \(Self.attemptsPerBatch)) after \(error)")
        case .refusedBesideOthers, .other:
            break
        }
    }

    /// Answers the batch's sources, once its entry is applied to this server
    /// so that they read their writes; at once when nothing anyone sees changed.
    private func answer(_ batch: [Pending], with results: [Result<EventOutcome, any Error>], once entry: FeedEntry?) {
        guard let entry else {
            for (pending, result) in zip(batch, results) { pending.continuation.resume(with: result) }
            return
        }
        let answer: @Sendable () -> Void = {
            for (pending, result) in zip(batch, results) { pending.continuation.resume(with: result) }
        }
        switch feed {
        case .ownThread(let commits):
            commits.apply(entry, then: answer)
        case .follower(let follower):
            follower.apply(committedHere: entry, then: answer)
        }
    }

    /// Runs the writer's transaction, which returns the entry it committed;
    /// on SQLite under the gate that places readers' snapshots in the feed.
    func committing(_ transaction: () throws -> FeedEntry?) throws -> FeedEntry? {
        guard case .ownThread(let commits) = feed else { return try transaction() }
        return try commits.gate.commit(transaction)
    }
}
