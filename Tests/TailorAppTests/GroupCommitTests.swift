@testable import TailorApp
import Testing

/// How long the writer rests after a batch, alone.
@Suite struct GroupCommitTests {
    static let millisecond: UInt64 = 1_000_000

    @Test func aBatchIsFollowedByARestWhileFewEventsWait() {
        let commits = GroupCommit(delay: Self.millisecond)
        #expect(commits.rest(waiting: 0) == Self.millisecond)
        #expect(commits.rest(waiting: GroupCommit.enoughEvents - 1) == Self.millisecond)
    }

    @Test func enoughEventsWaitingAreTakenWithoutARest() {
        let commits = GroupCommit(delay: Self.millisecond)
        #expect(commits.rest(waiting: GroupCommit.enoughEvents) == 0)
    }

    @Test func noDelayNeverRests() {
        #expect(GroupCommit(delay: 0).rest(waiting: 1) == 0)
    }

    /// Each server's share of the writes comes as many times more slowly, and
    /// each commit is followed by every server: the rest grows with them, to a bound.
    @Test func severalServersOnOneDatabaseRestAsManyTimesLongerUpToABound() {
        let commits = GroupCommit(delay: Self.millisecond)
        #expect(commits.rest(waiting: 1, servers: 1) == Self.millisecond)
        #expect(commits.rest(waiting: 1, servers: 3) == 3 * Self.millisecond)
        #expect(commits.rest(waiting: 1, servers: 16) == UInt64(GroupCommit.mostServersCounted) * Self.millisecond)
        #expect(commits.rest(waiting: GroupCommit.enoughEvents, servers: 3) == 0)
    }
}
