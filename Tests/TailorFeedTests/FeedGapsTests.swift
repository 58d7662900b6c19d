@testable import TailorFeed
import TailorStore
import Testing

/// The follower's rule for positions missing before entries it has read,
/// alone: applied in order through whatever is there, waiting at a gap until
/// the writers' transactions under way when it was seen have ended, and only then giving
/// up what is still missing.
@Suite struct FeedGapsTests {
    @Test func entriesWithNoneMissingAreAppliedAtOnce() {
        var gaps = FeedGaps(patience: .seconds(30))
        #expect(gaps.applicable(after: 4, positions: [5, 6, 7], writersEnded: true, now: 0) == (3, false))
        #expect(!gaps.isWaiting && !gaps.needsWriters)
    }

    @Test func aGapStopsTheReadUntilItsCommitComes() {
        var gaps = FeedGaps(patience: .seconds(30))
        // 6 is being committed: 7 waits.
        #expect(gaps.applicable(after: 4, positions: [5, 7], writersEnded: true, now: 0) == (1, false))
        #expect(gaps.waiting?.below == 7 && gaps.needsWriters)
        gaps.note(writers: "{10,11}")
        // Read again while those writers still run: 6 is still missing, nothing more is applied.
        #expect(gaps.applicable(after: 5, positions: [7, 8], writersEnded: false, now: 1) == (0, false))
        #expect(gaps.waiting?.writers == "{10,11}" && !gaps.needsWriters,
                "the oldest gap's writers are kept, or new commits would keep it waiting")
        // 6 came.
        #expect(gaps.applicable(after: 5, positions: [6, 7, 8], writersEnded: false, now: 2) == (3, false))
        #expect(!gaps.isWaiting)
    }

    @Test func aPositionStillMissingOnceTheWritersThenRunningEndedIsGivenUp() {
        var gaps = FeedGaps(patience: .seconds(30))
        #expect(gaps.applicable(after: 4, positions: [7, 9], writersEnded: true, now: 0) == (0, false))
        gaps.note(writers: "{10}")
        // Every writer running after the read ended: 5 and 6 never come. 8 was taken after it and may still come.
        #expect(gaps.applicable(after: 4, positions: [7, 9], writersEnded: true, now: 1) == (1, false))
        #expect(gaps.waiting?.below == 9 && gaps.needsWriters)
        gaps.note(writers: "{12}")
        #expect(gaps.applicable(after: 7, positions: [8, 9], writersEnded: false, now: 2) == (2, false))
        #expect(!gaps.isWaiting)
    }

    @Test func aGapIsNotGivenUpBeforeItsWritersAreListed() {
        var gaps = FeedGaps(patience: .seconds(30))
        _ = gaps.applicable(after: 4, positions: [6], writersEnded: true, now: 0)
        // The listing failed or has not come: a read that settles nothing gives up nothing.
        #expect(gaps.applicable(after: 4, positions: [6], writersEnded: true, now: 1) == (0, false))
        #expect(gaps.waiting?.below == 6 && gaps.needsWriters)
    }

    @Test func aGapFilledSinceNeedsNoSettling() {
        var gaps = FeedGaps(patience: .seconds(30))
        _ = gaps.applicable(after: 4, positions: [6], writersEnded: true, now: 0)
        gaps.note(writers: "{10}")
        // 5 and 6 were applied from notifications meanwhile; a new gap at 8 waits on writers of its own.
        #expect(gaps.applicable(after: 6, positions: [8], writersEnded: false, now: 1) == (0, false))
        #expect(gaps.waiting?.below == 8 && gaps.needsWriters)
    }

    @Test func aGapWaitedForPastItsPatienceIsGivenUpUnsettled() {
        var gaps = FeedGaps(patience: .seconds(1))
        _ = gaps.applicable(after: 4, positions: [6], writersEnded: true, now: 0)
        gaps.note(writers: "{10}")
        #expect(gaps.applicable(after: 4, positions: [6], writersEnded: false, now: 999_999_999) == (0, false))
        #expect(gaps.applicable(after: 4, positions: [6], writersEnded: false, now: 1_000_000_000) == (1, true))
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
