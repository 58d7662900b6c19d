import Synchronization
@testable import TailorApp
@testable import TailorDomain
@testable import TailorStreams
@testable import TailorViews
import Testing

/// `/readyz`'s write alone, with a clock the test moves: one write however
/// many ask at once or within a second, a new one after.
@Suite struct ReadinessProbeTests {
    private final class Counter: Sendable {
        private let value = Atomic(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    @Test func manyAskersShareOneWriteASecond() async {
        let writes = Counter()
        let clock = Atomic<UInt64>(5_000_000_000)
        let probe = ReadinessProbe(now: { clock.load(ordering: .relaxed) }) {
            writes.add()
            // A write that takes a while, so that the askers come while it is under way.
            try? await Task.sleep(nanoseconds: 20_000_000)
            return .committed
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 { group.addTask { if case .committed = await probe.ready() {} else { Issue.record("not committed") } } }
        }
        #expect(writes.count == 1)
        clock.add(900_000_000, ordering: .relaxed)
        _ = await probe.ready()
        #expect(writes.count == 1, "within a second of the last write")
        clock.add(200_000_000, ordering: .relaxed)
        _ = await probe.ready()
        #expect(writes.count == 2)
    }
}
