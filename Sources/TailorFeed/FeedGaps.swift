/// Where a follower of PostgreSQL's feed may not apply on yet. Servers take
/// their positions from one sequence without waiting for each other's
/// commits, so a read may find an entry while one before it is missing: its
/// commit still under way (it comes soon, and is applied first), or undone
/// (it never comes). The two are told apart without a record of which
/// transaction took which position: a position is drawn before the commit's
/// last statement ends, so a position missing below one that a snapshot
/// shows was taken by a transaction in progress when that snapshot was
/// taken. Once every transaction in progress then has ended, whatever of
/// those positions is still missing never comes, and is given up.
///
/// Our servers' transactions end within seconds (the lock wait, the idle
/// transaction's timeout), but a snapshot lists every transaction of the
/// database's server, another program's long one too: past `patience` a gap
/// is given up unsettled, which the follower logs.
///
/// A value type, owned by the follower's thread; tested alone.
struct FeedGaps {
    /// The oldest gap waited for: positions missing below `below` when
    /// `snapshot` (PostgreSQL's `pg_snapshot`, as text) showed the entry at
    /// `below`, first seen at `since` (MonotonicClock). Kept until it is
    /// settled, however many reads come between, so that a stream of new
    /// commits cannot keep it waiting.
    private(set) var waiting: (below: Int, snapshot: String, since: UInt64)?

    /// Nanoseconds a gap is waited for at most.
    let patience: UInt64

    init(patience seconds: Double = 30) {
        patience = UInt64(seconds * 1e9)
    }

    var patienceSeconds: Double { Double(patience) / 1e9 }

    /// How many of a page's entries, read after `applied` at `snapshot`, are
    /// applied now, in order: the missing positions before them are filled
    /// or given up. `earlierSettled`: every transaction in progress at the
    /// waited gap's snapshot had ended when the page was read. `unsettled`:
    /// a gap was given up for its time alone.
    mutating func applicable(after applied: Int, positions: [Int], snapshot: String, earlierSettled: Bool,
                             now: UInt64) -> (count: Int, unsettled: Bool) {
        var givenUpBelow = Int.min
        var unsettled = false
        if let waited = waiting, applied + 1 >= waited.below {
            // Filled, every one of them, by entries applied since.
            waiting = nil
        } else if let waited = waiting, earlierSettled || now >= waited.since + patience {
            givenUpBelow = waited.below
            unsettled = !earlierSettled
            waiting = nil
        }
        var next = applied + 1
        var count = 0
        for position in positions {
            guard position == next || position <= givenUpBelow else {
                if waiting == nil { waiting = (position, snapshot, now) }
                break
            }
            count += 1
            next = position + 1
        }
        if let waited = waiting, next >= waited.below { waiting = nil }
        return (count, unsettled)
    }

    /// Whether a read stopped at a gap.
    var isWaiting: Bool { waiting != nil }
}
