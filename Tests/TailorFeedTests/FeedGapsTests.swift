@testable import TailorFeed
import TailorStore
import Testing

/// The follower's rule for positions missing before entries it has read,
/// alone: applied in order through whatever is there, waiting at a gap until
/// the commits under way when it was seen have ended, and only then giving
/// up what is still missing.
@Suite struct FeedGapsTests {
    @Test func entriesWithNoneMissingAreAppliedAtOnce() {
        var gaps = FeedGaps()
        #expect(gaps.applicable(after: 4, positions: [5, 6, 7], snapshot: "s1", earlierSettled: true, now: 0) == (3, false))
        #expect(!gaps.isWaiting)
    }

    @Test func aGapStopsTheReadUntilItsCommitComes() {
        var gaps = FeedGaps()
        // 6 is being committed: 7 waits.
        #expect(gaps.applicable(after: 4, positions: [5, 7], snapshot: "s1", earlierSettled: true, now: 0) == (1, false))
        #expect(gaps.waiting?.below == 7 && gaps.waiting?.snapshot == "s1")
        // Read again while s1's commits still run: 6 is still missing, nothing more is applied.
        #expect(gaps.applicable(after: 5, positions: [7, 8], snapshot: "s2", earlierSettled: false, now: 1) == (0, false))
        #expect(gaps.waiting?.snapshot == "s1", "the oldest gap's snapshot is kept, or new commits would keep it waiting")
        // 6 came.
        #expect(gaps.applicable(after: 5, positions: [6, 7, 8], snapshot: "s3", earlierSettled: false, now: 2) == (3, false))
        #expect(!gaps.isWaiting)
    }

    @Test func aPositionStillMissingOnceTheCommitsThenUnderWayEndedIsGivenUp() {
        var gaps = FeedGaps()
        #expect(gaps.applicable(after: 4, positions: [7, 9], snapshot: "s1", earlierSettled: true, now: 0) == (0, false))
        // Every commit under way at s1 ended: 5 and 6 never come. 8 was taken after s1 and may still come.
        #expect(gaps.applicable(after: 4, positions: [7, 9], snapshot: "s2", earlierSettled: true, now: 1) == (1, false))
        #expect(gaps.waiting?.below == 9 && gaps.waiting?.snapshot == "s2")
        #expect(gaps.applicable(after: 7, positions: [8, 9], snapshot: "s3", earlierSettled: false, now: 2) == (2, false))
        #expect(!gaps.isWaiting)
    }

    @Test func aGapFilledSinceNeedsNoSettling() {
        var gaps = FeedGaps()
        _ = gaps.applicable(after: 4, positions: [6], snapshot: "s1", earlierSettled: true, now: 0)
        // 5 and 6 were applied from notifications meanwhile; a new gap at 8 waits on a new snapshot.
        #expect(gaps.applicable(after: 6, positions: [8], snapshot: "s2", earlierSettled: false, now: 1) == (0, false))
        #expect(gaps.waiting?.below == 8 && gaps.waiting?.snapshot == "s2")
    }

    @Test func aGapWaitedForPastItsPatienceIsGivenUpUnsettled() {
        var gaps = FeedGaps(patience: 1)
        _ = gaps.applicable(after: 4, positions: [6], snapshot: "s1", earlierSettled: true, now: 0)
        #expect(gaps.applicable(after: 4, positions: [6], snapshot: "s2", earlierSettled: false, now: 999_999_999) == (0, false))
        #expect(gaps.applicable(after: 4, positions: [6], snapshot: "s3", earlierSettled: false, now: 1_000_000_000) == (1, true))
    }

    @Test func aPlaceShowsWhatItHoldsAndFollowsTheFeedInOrder() {
        var place = FeedPlace(through: 4, beyond: [7, 5, 3])
        #expect(place == FeedPlace(through: 5, beyond: [7]))
        #expect(place.shows(3) && place.shows(5) && !place.shows(6) && place.shows(7) && !place.shows(8))
        place.pass(6)
        #expect(place == FeedPlace(through: 7))
        place.pass(2)
        #expect(place == FeedPlace(through: 7))
    }
}
