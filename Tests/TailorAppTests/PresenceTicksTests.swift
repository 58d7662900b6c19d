import Synchronization
import TailorLoop
@testable import TailorPresence
import TailorTestSupport
import Testing

/// When presence ticks, alone: a tick at the start, one when something
/// comes due, none in between.
@Suite struct PresenceTicksTests {
    private static let spacing: Duration = .milliseconds(10)

    /// A tick brought nearer than the one scheduled ticks first, and the one
    /// scheduled before still ticks after it when that tick asks for it.
    @Test func aNearerTickComesFirstAndTheOneScheduledBeforeStillComes() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let ticks = PresenceTicks(spacing: Self.spacing, on: group.loops[0])
        defer { ticks.stop() }
        let later = MonotonicClock.after(.milliseconds(300))
        let count = Atomic<Int>(0)
        // The first two ticks ask for the same time later on, the third for none.
        ticks.start {
            count.add(1, ordering: .relaxed).newValue < 3 ? later : .max
        }
        #expect(eventually { count.load(ordering: .relaxed) == 1 }, "the first tick, at the start")
        ticks.due(at: MonotonicClock.after(.milliseconds(20)))
        #expect(eventually { count.load(ordering: .relaxed) == 2 }, "the nearer tick")
        #expect(eventually { count.load(ordering: .relaxed) == 3 }, "the tick scheduled before it")
        #expect(MonotonicClock.now >= later)
        #expect(throughout(0.1) { count.load(ordering: .relaxed) == 3 }, "nothing more is due")
    }

    /// After the stop no tick runs, though one was due.
    @Test func noTickRunsAfterTheStop() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let ticks = PresenceTicks(spacing: Self.spacing, on: group.loops[0])
        let count = Atomic<Int>(0)
        ticks.start {
            count.add(1, ordering: .relaxed)
            return MonotonicClock.after(.milliseconds(50))
        }
        #expect(eventually { count.load(ordering: .relaxed) >= 2 }, "ticking while something is due")
        ticks.stop()
        let stopped = count.load(ordering: .relaxed)
        #expect(throughout(0.2) { count.load(ordering: .relaxed) <= stopped + 1 }, "at most the tick under way")
    }
}
