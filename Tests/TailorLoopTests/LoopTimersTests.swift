import Synchronization
@testable import TailorLoop
import Testing

/// A loop's timers as a value: taken soonest first, those due at one time
/// in the order they were set, and none before its time.
@Suite struct LoopTimersTests {
    @Test func timersAreTakenSoonestFirstAndOnlyOnceDue() {
        var timers = LoopTimers()
        let taken = Mutex<[Int]>([])
        // Due at 10 × (each one's number mod 7): several at each time, set out of order.
        for number in [5, 12, 3, 0, 19, 7, 14, 1, 8, 20, 6, 13] {
            timers.add(due: UInt64(10 * (number % 7))) { taken.withLock { $0.append(number) } }
        }
        #expect(timers.nextDue == 0)
        for body in timers.takeDue(by: 25) { body() }
        // Due at 0: 0, 7 and 14, in the order they were set; at 10: 1 and 8.
        #expect(taken.withLock { $0 } == [0, 7, 14, 1, 8])
        #expect(timers.nextDue == 30)
        #expect(timers.takeDue(by: 29).isEmpty)
        for body in timers.takeDue(by: .max) { body() }
        #expect(taken.withLock { $0 } == [0, 7, 14, 1, 8, 3, 5, 12, 19, 20, 6, 13])
        #expect(timers.nextDue == nil && timers.count == 0)
    }

    /// Many timers at random times come out in order, whatever the order they were set in.
    @Test func manyTimersComeOutInTheOrderOfTheirTimes() {
        var generator = SystemRandomNumberGenerator()
        var timers = LoopTimers()
        let taken = Mutex<[UInt64]>([])
        var dues: [UInt64] = []
        for _ in 0..<2_000 {
            let due = UInt64.random(in: 0..<500, using: &generator)
            dues.append(due)
            timers.add(due: due) { taken.withLock { $0.append(due) } }
        }
        var now: UInt64 = 0
        while timers.nextDue != nil {
            now += 37
            for body in timers.takeDue(by: now) { body() }
        }
        #expect(taken.withLock { $0 } == dues.sorted())
    }
}
