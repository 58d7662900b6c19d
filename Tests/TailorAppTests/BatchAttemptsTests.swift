@testable import TailorApp
import Testing

/// The writer's decisions for a batch, alone: each way an attempt fails, as
/// the fault suite meets them, and what the writer does next.
@Suite struct BatchAttemptsTests {
    @Test func aBatchIsFirstWrittenSideBySideAndWaitsAsLong() {
        let attempts = BatchAttempts(size: 3, maxAttempts: 5)
        #expect(!attempts.eachAlone && !attempts.triesEveryChat && attempts.attempt == 1)
        #expect(!attempts.waitsBriefly(heldElsewhereLately: false))
        #expect(attempts.waitsBriefly(heldElsewhereLately: true), "a lock wait ran out lately for another batch")
    }

    /// A rule said no to one event, or a unique client id came again in a way the insert did not take.
    @Test func anEventRefusedBesideOthersHasTheBatchWrittenAgainEachAlone() {
        var attempts = BatchAttempts(size: 3, maxAttempts: 5)
        #expect(attempts.failed(.refusedBesideOthers) == .writeAgain)
        #expect(attempts.eachAlone && !attempts.triesEveryChat && attempts.attempt == 1)
        // Alone, refusals are results: one more would be a fault of the writer's, not a loop.
        #expect(attempts.failed(.refusedBesideOthers) == .failEveryEvent)
    }

    @Test func aBatchOfOneRefusedIsAnsweredWithTheRefusal() {
        var attempts = BatchAttempts(size: 1, maxAttempts: 5)
        #expect(attempts.failed(.refusedBesideOthers) == .answerTheRefusal)
    }

    /// Another server froze or was cut off inside a commit that holds a chat of the batch.
    @Test func aLockWaitRunOutHasEveryChatTriedAndEachEventAloneUpToTheAttempts() {
        var attempts = BatchAttempts(size: 4, maxAttempts: 3)
        #expect(attempts.failed(.lockWaitRanOut) == .writeAgain)
        #expect(attempts.eachAlone && attempts.triesEveryChat && attempts.attempt == 2)
        #expect(attempts.waitsBriefly(heldElsewhereLately: false))
        #expect(attempts.failed(.lockWaitRanOut) == .writeAgain)
        #expect(attempts.failed(.lockWaitRanOut) == .failEveryEvent)
        #expect(attempts.attempt == 3)
    }

    @Test func aConflictHasTheBatchWrittenAgainWholeUpToTheAttempts() {
        var attempts = BatchAttempts(size: 2, maxAttempts: 2)
        #expect(attempts.failed(.conflictWithAnotherTransaction) == .writeAgain)
        #expect(!attempts.eachAlone && !attempts.triesEveryChat && attempts.attempt == 2)
        #expect(attempts.failed(.conflictWithAnotherTransaction) == .failEveryEvent)
    }

    /// The database restarted or its connection was lost mid-batch: nothing is stored.
    @Test func anyOtherFailureFailsEveryEventAtOnce() {
        var attempts = BatchAttempts(size: 5, maxAttempts: 5)
        #expect(attempts.failed(.other) == .failEveryEvent)
        var after = BatchAttempts(size: 5, maxAttempts: 5)
        _ = after.failed(.lockWaitRanOut)
        #expect(after.failed(.other) == .failEveryEvent)
    }
}
