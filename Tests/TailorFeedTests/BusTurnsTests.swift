@testable import TailorFeed
import TailorLoop
import Testing

/// When a follower on the bus reads the feed at its turns: not while other
/// servers' commits are told, at the first turn of a silence and at each
/// while it lasts, and as off the bus while the bus is away.
@Suite struct BusTurnsTests {
    private let turn = MonotonicClock.nanoseconds(BusTurns.turn)
    private let quietTurn = MonotonicClock.nanoseconds(BusTurns.quietTurn)

    @Test func whileCommitsAreToldATurnReadsNothing() {
        var turns = BusTurns()
        #expect(turns.take(told: 40, connected: true, now: 0) == (false, turn))
        #expect(turns.take(told: 95, connected: true, now: turn) == (false, 2 * turn))
    }

    @Test func theFirstTurnOfASilenceReadsAndSoDoesEachWhileItLasts() {
        var turns = BusTurns()
        _ = turns.take(told: 40, connected: true, now: 0)
        // Nothing told since: the commits last told may have been followed by one lost.
        #expect(turns.take(told: 40, connected: true, now: turn) == (true, turn + quietTurn))
        #expect(turns.take(told: 40, connected: true, now: turn + quietTurn) == (true, turn + 2 * quietTurn))
        // Told again: back to turns that read nothing.
        #expect(turns.take(told: 41, connected: true, now: turn + 2 * quietTurn) == (false, 2 * turn + 2 * quietTurn))
        #expect(BusTurns.turn < BusTurns.quietTurn)
    }

    @Test func whileTheBusIsAwayTheFeedIsReadAsOffIt() {
        var turns = BusTurns()
        let poll = MonotonicClock.nanoseconds(FeedFollower.pollInterval)
        #expect(turns.take(told: 40, connected: false, now: 0) == (true, poll))
        #expect(turns.take(told: 40, connected: false, now: poll) == (true, 2 * poll))
        // Back: what was told meanwhile (through PostgreSQL, say) counts as told.
        #expect(turns.take(told: 52, connected: true, now: 2 * poll) == (false, 2 * poll + turn))
    }
}
