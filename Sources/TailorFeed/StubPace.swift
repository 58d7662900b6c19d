import TailorLoop

/// How soon a writer on the bus sends everyone the stubs of its commits.
///
/// A stub is needed soon only by a server that waits for it: one holding
/// another writer's entries behind this writer's positions (`FeedFollower`
/// waits `gapPause` for them, then reads PostgreSQL). While no other server
/// writes, no one can: the servers this writer sends its commits to whole
/// get the stubs before each commit with it, and the rest only move on
/// through the feed. The stubs then go less often, which spares every server
/// that serves none of their users most of its wake-ups: NATS's reader
/// thread wakes for each message, and a wake-up costs more than the stubs
/// it brings.
///
/// A value, owned by whoever holds the writer's bus; tested alone.
package struct StubPace: Sendable {
    /// While another server writes: sooner than a follower reads for a missing position.
    package static let soon = Pace(pause: .milliseconds(10), atMost: 256)
    /// While this server writes alone: the feed's other followers are at
    /// most this far behind its commits, and no request waits for that
    /// (one that carries a position has it read at once). Shorter than a
    /// follower's turn on the bus (`BusTurns.turn`), so that each turn
    /// while this server writes finds stubs told.
    package static let alone = Pace(pause: .milliseconds(250), atMost: 256)
    /// How long after another server's commit was last seen this server still counts as writing beside it.
    package static let othersQuiet: Duration = .seconds(2)

    /// How long the first stub of a sending waits for others, and how many go at most in one.
    package struct Pace: Equatable, Sendable {
        package let pause: Duration
        package let atMost: Int
    }

    /// Other servers' commits seen so far, and when that count last grew (MonotonicClock).
    private var othersSeen = 0
    private var othersSeenAt: UInt64?
    private let quiet = MonotonicClock.nanoseconds(othersQuiet)

    package init() {}

    /// The pace now, `othersSeen` being how many of other servers' commits
    /// this server's follower has heard of or read so far.
    package mutating func pace(othersSeen seen: Int, now: UInt64) -> Pace {
        if seen != othersSeen {
            othersSeen = seen
            othersSeenAt = now
        }
        guard let seenAt = othersSeenAt, now &- seenAt < quiet else { return Self.alone }
        return Self.soon
    }
}
