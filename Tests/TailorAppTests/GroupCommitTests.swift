@testable import TailorApp
@testable import TailorDomain
@testable import TailorStreams
@testable import TailorViews
import Testing

/// When the writer holds a batch back for more events, alone.
@Suite struct GroupCommitTests {
    static let millisecond: UInt64 = 1_000_000

    @Test func theFirstBatchIsTakenAtOnce() {
        let commits = GroupCommit(delay: Self.millisecond)
        #expect(commits.wait(now: 10 * Self.millisecond, waiting: 1, oldestArrival: 10 * Self.millisecond) == 0)
    }

    @Test func eventsCloseAfterABatchWaitUntilTheOldestHasWaitedTheDelay() {
        var commits = GroupCommit(delay: Self.millisecond)
        commits.batchEnded(at: 100 * Self.millisecond)
        let arrival = 100 * Self.millisecond + 300_000
        #expect(commits.wait(now: arrival + 100_000, waiting: 1, oldestArrival: arrival) == 900_000)
        #expect(commits.wait(now: arrival + 999_999, waiting: 3, oldestArrival: arrival) == 1)
    }

    @Test func anEventThatWaitedTheDelayAlreadyIsTakenAtOnce() {
        var commits = GroupCommit(delay: Self.millisecond)
        commits.batchEnded(at: 100 * Self.millisecond)
        // It arrived while the last batch was being written, which took longer than the delay.
        let arrival = 99 * Self.millisecond
        #expect(commits.wait(now: 100 * Self.millisecond + 1, waiting: 1, oldestArrival: arrival) == 0)
    }

    @Test func anEventAfterAQuietSpellIsTakenAtOnce() {
        var commits = GroupCommit(delay: Self.millisecond)
        commits.batchEnded(at: 100 * Self.millisecond)
        let now = 101 * Self.millisecond
        #expect(commits.wait(now: now, waiting: 1, oldestArrival: now) == 0)
    }

    @Test func enoughEventsAreTakenAtOnce() {
        var commits = GroupCommit(delay: Self.millisecond)
        commits.batchEnded(at: 100 * Self.millisecond)
        let now = 100 * Self.millisecond + 1
        #expect(commits.wait(now: now, waiting: GroupCommit.enoughEvents, oldestArrival: now) == 0)
        #expect(commits.wait(now: now, waiting: GroupCommit.enoughEvents - 1, oldestArrival: now) == Self.millisecond)
    }

    @Test func noDelayNeverWaits() {
        var commits = GroupCommit(delay: 0)
        commits.batchEnded(at: 100 * Self.millisecond)
        #expect(commits.wait(now: 100 * Self.millisecond, waiting: 1, oldestArrival: 100 * Self.millisecond) == 0)
    }
}
