@testable import TailorApp
import Testing

/// The writer's memory of chats another server's transaction held, alone: its
/// windows follow the idle-transaction timeout the servers are given.
@Suite struct ChatsHeldElsewhereTests {
    @Test func theBriefWaitsAndTheForgettingFollowTheIdleTransactionTimeout() {
        var held = ChatsHeldElsewhere(idleTransactionTimeout: .seconds(1))
        held.lockWaitRanOut(at: 0)
        #expect(held.waitsBriefly(at: 1_999_999_999))
        #expect(!held.waitsBriefly(at: 2_000_000_000))
        held.tried([7], held: [7], at: 0)
        #expect(held.among([7, 8]) == [7])
        // Another chat found held twelve seconds later: 7, not asked for since, is let go.
        held.tried([9], held: [9], at: 12_000_000_000)
        #expect(held.among([7, 9]) == [9])
    }

    @Test func theDefaultTimeoutKeepsTheWindowsItHadBefore() {
        let held = ChatsHeldElsewhere(idleTransactionTimeout: .seconds(5))
        #expect(held.briefFor == 10_000_000_000 && held.forgetAfter == 60_000_000_000)
    }

    @Test func aChatTakenAgainIsLetGoAtOnce() {
        var held = ChatsHeldElsewhere(idleTransactionTimeout: .seconds(5))
        held.tried([3, 4], held: [3, 4], at: 0)
        held.tried([3, 4], held: [4], at: 1)
        #expect(held.among([3, 4]) == [4])
    }
}
