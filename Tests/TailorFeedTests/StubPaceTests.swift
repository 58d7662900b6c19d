@testable import TailorFeed
import TailorLoop
import Testing

/// How soon a writer on the bus sends its stubs, as other servers write or not.
@Suite struct StubPaceTests {
    private let second = MonotonicClock.nanoseconds(.seconds(1))

    @Test func aServerWritingAloneSendsItsStubsLessOften() {
        var pace = StubPace()
        #expect(pace.pace(othersSeen: 0, now: 0) == StubPace.alone)
        #expect(pace.pace(othersSeen: 0, now: 10 * second) == StubPace.alone)
        #expect(StubPace.alone.pause > StubPace.soon.pause)
        #expect(StubPace.alone.pause < BusTurns.turn)
    }

    @Test func anotherServersCommitMakesThemGoSoonUntilItHasBeenQuietAWhile() {
        var pace = StubPace()
        _ = pace.pace(othersSeen: 0, now: 0)
        #expect(pace.pace(othersSeen: 3, now: 5 * second) == StubPace.soon)
        // Still within the quiet time of the last commit seen: soon.
        #expect(pace.pace(othersSeen: 3, now: 6 * second) == StubPace.soon)
        #expect(pace.pace(othersSeen: 4, now: 6 * second + 1) == StubPace.soon)
        // Quiet for `othersQuiet` since the last one: alone again.
        let quiet = MonotonicClock.nanoseconds(StubPace.othersQuiet)
        #expect(pace.pace(othersSeen: 4, now: 6 * second + quiet) == StubPace.soon)
        #expect(pace.pace(othersSeen: 4, now: 6 * second + 1 + quiet) == StubPace.alone)
    }

    @Test func stubsSentSoonComeBeforeAFollowerReadsForTheirPositions() {
        #expect(StubPace.soon.pause < FeedFollower.gapPause)
    }
}
