import TailorLoop

/// When a follower on the bus reads the feed at its turn, and when its next
/// turn comes.
///
/// On the bus the feed's read finds only what the bus lost: every commit of
/// another server is told to every server, whole or by its stub, so one
/// lost while commits go on shows as a position missing before the next one
/// told, which is read for within `FeedFollower.gapPause`. What no later
/// commit shows is the last commits before a silence. So at a turn the feed
/// is read only when nothing was told since the turn before: at the first
/// turn of a silence, which finds those, and then once a `quietTurn` while
/// it lasts. While commits are told, a turn only takes the stubs that wait
/// on the bus (`FeedFollower.takesFromBus`), every `turn`, and reads
/// nothing: a server that serves none of their users then spends on the
/// feed only the stubs, and PostgreSQL nothing. While the bus is away,
/// nothing comes by it: the feed is read every `FeedFollower.pollInterval`,
/// as off the bus.
///
/// A value, owned by the follower's thread; tested alone.
package struct BusTurns: Sendable {
    /// The time between turns while other servers' commits are told.
    package static let turn: Duration = .seconds(1)
    /// The time between turns while none is: the feed is read at each.
    package static let quietTurn: Duration = .seconds(3)

    /// How many of other servers' commits had been told at the last turn.
    private var toldAtLastTurn = 0

    package init() {}

    /// The turn, at `now` (MonotonicClock): `told` is how many of other
    /// servers' commits were told on the bus so far, `connected` whether
    /// the bus is up. Whether to read the feed, and when the next turn is.
    package mutating func take(told: Int, connected: Bool, now: UInt64) -> (reads: Bool, next: UInt64) {
        let toldSince = told != toldAtLastTurn
        toldAtLastTurn = told
        guard connected else { return (true, now + MonotonicClock.nanoseconds(FeedFollower.pollInterval)) }
        if toldSince { return (false, now + MonotonicClock.nanoseconds(Self.turn)) }
        return (true, now + MonotonicClock.nanoseconds(Self.quietTurn))
    }
}
