/// When the writer holds a batch back so that more events share its commit.
///
/// A commit costs about the same for one message as for several: the pages
/// they share (the table's last leaf, the id counter, the index leaves of a
/// busy chat) are written to the log once, the feed thread and the lanes are
/// woken once, a checkpoint is asked for once. At a steady rate an event
/// nearly always finds the writer resting, and would be committed alone. So
/// when events come close together — the oldest one waiting arrived less
/// than `delay` after the last batch ended —
/// the writer takes the next batch only once that event has waited `delay`,
/// and the events that arrive meanwhile join it. An event that finds the
/// writer idle for longer is committed at once: a quiet server adds no wait,
/// and a busy one gathers its batches anyway. No event waits longer than
/// `delay` for others.
struct GroupCommit {
    /// Nanoseconds a batch waits for more events; 0 never waits.
    let delay: UInt64
    /// Events that make a batch worth committing without waiting for more.
    static let enoughEvents = 16
    /// When the writer last finished a batch; nil before the first.
    private var lastBatchEnded: UInt64?

    init(delay: UInt64) {
        self.delay = delay
    }

    /// Nanoseconds to wait, at `now`, before taking a batch from the `waiting`
    /// events, the oldest of which arrived at `oldestArrival` (nil: none waits).
    func wait(now: UInt64, waiting: Int, oldestArrival: UInt64?) -> UInt64 {
        guard delay > 0, waiting < Self.enoughEvents, let oldestArrival, let lastBatchEnded, oldestArrival < lastBatchEnded + delay,
              now < oldestArrival + delay else { return 0 }
        return oldestArrival + delay - now
    }

    mutating func batchEnded(at now: UInt64) {
        lastBatchEnded = now
    }
}
