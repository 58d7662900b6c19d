import TailorLoop

/// Where a follower of PostgreSQL's feed may not apply on yet. Servers take
/// their positions from one sequence without waiting for each other's
/// commits, so a read may find an entry while one before it is missing: its
/// commit still under way (it comes soon, and is applied first), or undone
/// (it never comes). The two are told apart without a record of which
/// transaction took which position: a position missing below one that a
/// read shows was taken by a writer's transaction still in progress when
/// that read began. The writers' transactions in progress are listed just
/// after the read (`Store.writersInProgress`); once every one of them has
/// ended, whatever of those positions is still missing never comes, and is
/// given up. Other programs' transactions beside ours draw no position and
/// are not waited for.
///
/// A writer's transaction ends within seconds (the lock wait, the idle
/// transaction's timeout); past `patience` a gap is given up all the same,
/// unsettled, which the follower logs (`givenUp`). The same patience bounds
/// the wait for the writers in progress when a server starts following
/// (`Store.settledPosition`).
///
/// A value type, owned by the follower's thread; tested alone.
package struct FeedGaps {
    /// The oldest gap waited for: positions missing below `below`, first seen
    /// at `since` (MonotonicClock), and the writers' transactions that could
    /// fill them (nil until listed). Kept until it is settled, however many
    /// reads come between, so that a stream of new commits cannot keep it waiting.
    private(set) var waiting: (below: Int, writers: String?, since: UInt64)?

    /// Nanoseconds (MonotonicClock's) a gap is waited for at most.
    private let patience: UInt64

    init(patience: Duration) {
        self.patience = MonotonicClock.nanoseconds(patience)
    }

    /// The patience for servers whose PostgreSQL sessions are ended after
    /// `idleTransactionTimeout` idle in a transaction: a writer frozen or cut
    /// off inside its commit has its transaction undone by then, and one that
    /// runs commits within its lock wait. Three times it, and 10 s at least
    /// (a busy database, a slow disk).
    package static func patience(idleTransactionTimeout: Duration) -> Duration {
        max(.seconds(10), idleTransactionTimeout * 3)
    }

    /// What the follower logs when a gap below `below` is given up unsettled, at start or while following.
    package static func givenUp(below: Int, after patience: Duration) -> String {
        "the change feed's positions missing below \(below) were given up after \(patience.inSeconds) s while writers' "
            + "transactions begun before were still running: an entry one of them commits there is not applied here"
    }

    /// How many of a page's entries, read after `applied`, are applied now, in
    /// order: the missing positions before them are filled or given up.
    /// `writersEnded`: every transaction of the waited gap's writers had
    /// ended when the page was read (asked for only once they are listed).
    /// `unsettled`: a gap was given up for its time alone.
    mutating func applicable(after applied: Int, positions: [Int], writersEnded: Bool, now: UInt64) -> (count: Int, unsettled: Bool) {
        var givenUpBelow = Int.min
        var unsettled = false
        if let waited = waiting, applied + 1 >= waited.below {
            // Filled, every one of them, by entries applied since.
            waiting = nil
        } else if let waited = waiting {
            let settled = writersEnded && waited.writers != nil
            if settled || now >= waited.since + patience {
                givenUpBelow = waited.below
                unsettled = !settled
                waiting = nil
            }
        }
        var next = applied + 1
        var count = 0
        for position in positions {
            guard position == next || position <= givenUpBelow else {
                if waiting == nil { waiting = (position, nil, now) }
                break
            }
            count += 1
            next = position + 1
        }
        if let waited = waiting, next >= waited.below { waiting = nil }
        return (count, unsettled)
    }

    /// Whether the gap waited for still needs its writers listed: once, after
    /// the read that found it.
    var needsWriters: Bool { waiting.map { $0.writers == nil } ?? false }

    /// The writers' transactions in progress just after the read that found the gap.
    mutating func note(writers: String) {
        waiting?.writers = writers
    }

    /// Whether a read stopped at a gap.
    var isWaiting: Bool { waiting != nil }
}
