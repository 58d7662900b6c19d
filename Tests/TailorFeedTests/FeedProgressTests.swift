import Dispatch
import Synchronization
@testable import TailorDomain
import TailorFeed
import TailorLoop
@testable import TailorViews
import Testing

/// How far the feed is applied, and the waits on it, alone.
@Suite struct FeedProgressTests {
    @Test func aWaitIsAnsweredOnceWhenThePositionIsApplied() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let progress = FeedProgress(applied: 3, isShared: true, timers: group.loops[0])
        let answers = Mutex<[Bool]>([])
        progress.whenApplied(2, within: .seconds(5)) { done in answers.withLock { $0.append(done) } }
        #expect(answers.withLock { $0 } == [true], "an applied position is answered at once")
        progress.whenApplied(5, within: .seconds(5)) { done in answers.withLock { $0.append(done) } }
        progress.advance(to: 4)
        #expect(answers.withLock { $0 } == [true])
        progress.advance(to: 6)
        progress.advance(to: 7)
        #expect(answers.withLock { $0 } == [true, true])
        #expect(progress.applied == 7)
    }

    @Test func aWaitForAPositionThatDoesNotComeIsGivenUpOnce() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let progress = FeedProgress(applied: 0, isShared: true, timers: group.loops[0])
        let answered = DispatchSemaphore(value: 0)
        let answers = Mutex<[Bool]>([])
        progress.whenApplied(10, within: .seconds(0.05)) { done in
            answers.withLock { $0.append(done) }
            answered.signal()
        }
        answered.wait()
        // Applied later, it is not answered again.
        progress.advance(to: 10)
        #expect(answers.withLock { $0 } == [false])
    }

    /// A write answered before its own commit was applied (the database
    /// unreachable) names its commit's position, not the one applied: another
    /// server waits for it before it answers that client.
    @Test func aWriteAnsweredBeforeItsCommitIsAppliedNamesItsCommit() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let progress = FeedProgress(applied: 3, isShared: true, timers: group.loops[0])
        let answered = DispatchSemaphore(value: 0)
        progress.whenApplied(8, committedHere: true, within: .seconds(0.05)) { _ in answered.signal() }
        answered.wait()
        #expect(progress.applied == 3)
        #expect(progress.answered == 8)
        progress.advance(to: 9)
        #expect(progress.answered == 9)
    }

    /// Under load every batch waits a moment for the feed: one scheduled look
    /// for the waits given up serves them all, not a timer for each.
    @Test func manyWaitsShareOneLookForThoseGivenUp() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let progress = FeedProgress(applied: 0, isShared: true, timers: group.loops[0])
        for position in 1...1_000 {
            progress.whenApplied(position, within: .seconds(5)) { _ in }
            progress.advance(to: position)
        }
        #expect(progress.looksScheduled == 1)
    }

    /// A shorter wait that comes after a longer one is given up on its own time.
    @Test func aShorterWaitIsGivenUpBeforeALongerOne() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let progress = FeedProgress(applied: 0, isShared: true, timers: group.loops[0])
        let answers = Mutex<[Int: Bool]>([:])
        let shortAnswered = DispatchSemaphore(value: 0)
        progress.whenApplied(10, within: .seconds(30)) { done in answers.withLock { $0[10] = done } }
        progress.whenApplied(11, within: .seconds(0.05)) { done in
            answers.withLock { $0[11] = done }
            shortAnswered.signal()
        }
        #expect(shortAnswered.wait(timeout: .now() + 10) == .success)
        #expect(answers.withLock { $0 } == [11: false])
        progress.advance(to: 10)
        #expect(answers.withLock { $0 } == [10: true, 11: false])
    }

    @Test func awaitingAPositionTellsWhetherItCame() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let progress = FeedProgress(applied: 0, isShared: true, timers: group.loops[0])
        #expect(await progress.wait(for: 1, atMost: .seconds(0.05)) == false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { progress.advance(to: 2) }
        #expect(await progress.wait(for: 2, atMost: .seconds(5)) == true)
    }
}
