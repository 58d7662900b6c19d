import Dispatch
import Glibc
import Synchronization
import TailorLoop
import TailorTestSupport
import Testing

/// A fixed number of named threads sharing one queue of jobs, without sockets.
@Suite struct ThreadPoolTests {
    private struct Refused: Error, Equatable {}

    /// Jobs that wait until let go: as many run at once as there are threads,
    /// the others wait their turn, and every one runs.
    @Test func atMostItsThreadsRunAtOnceAndEveryJobRuns() {
        let pool = ThreadPool(name: "test-pool", count: 2)
        let jobs = 6
        let started = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let names = Mutex<Set<String>>([])
        let letGo = DispatchSemaphore(value: 0)
        for _ in 0..<jobs {
            pool.async {
                started.add(1, ordering: .acquiringAndReleasing)
                names.withLock { _ = $0.insert(ThreadNames.current) }
                letGo.wait()
                finished.add(1, ordering: .acquiringAndReleasing)
            }
        }
        #expect(eventually(timeout: 30) { started.load(ordering: .acquiring) >= 2 })
        #expect(throughout(0.05) { started.load(ordering: .acquiring) == 2 }, "no third job starts")
        #expect(names.withLock { $0 } == ["test-pool-0", "test-pool-1"])
        for _ in 0..<jobs { letGo.signal() }
        #expect(eventually(timeout: 30) { finished.load(ordering: .acquiring) == jobs })
        #expect(pool.count == 2)
    }

    /// Under a steady load the queue may never empty: the jobs already run
    /// must not stay in it.
    @Test func aQueueThatNeverEmptiesLetsGoOfTheJobsRun() {
        let pool = ThreadPool(name: "test-drop", count: 1)
        let freed = Counter()
        let first = DispatchSemaphore(value: 0)
        let last = DispatchSemaphore(value: 0)
        let ran = Atomic<Int>(0)
        pool.async { first.wait() }
        for _ in 0..<200 {
            let held = Counted(freed)
            pool.async {
                _ = held
                ran.add(1, ordering: .acquiringAndReleasing)
            }
        }
        pool.async { last.wait() }
        // Keeps the queue from emptying while the thread waits on `last`.
        pool.async {}
        first.signal()
        #expect(eventually(timeout: 30) { ran.load(ordering: .acquiring) == 200 })
        #expect(eventually { freed.value >= 100 })
        last.signal()
    }

    @Test func runAnswersTheCallerWithTheResultOrTheError() async throws {
        let pool = ThreadPool(name: "test-run", count: 1)
        let name = try await pool.run { ThreadNames.current }
        #expect(name == "test-run-0")
        await #expect(throws: Refused()) {
            try await pool.run { () throws -> Int in throw Refused() }
        }
    }

    /// Like a dispatch queue it needs no shutdown: once nothing holds it,
    /// its threads run what is queued and end.
    @Test func itsThreadsEndOnceNothingHoldsIt() {
        let ran = Atomic<Int>(0)
        let letGo = DispatchSemaphore(value: 0)
        do {
            let pool = ThreadPool(name: "test-gone", count: 3)
            for _ in 0..<5 {
                pool.async {
                    // The pool is let go of with these running and queued.
                    letGo.wait()
                    ran.add(1, ordering: .acquiringAndReleasing)
                }
            }
        }
        for _ in 0..<5 { letGo.signal() }
        #expect(eventually(timeout: 30) { ran.load(ordering: .acquiring) == 5 }, "what was queued runs")
        #expect(eventually(timeout: 30) { (0..<3).map { ThreadNames.threads(named: "test-gone-\($0)") }.reduce(0, +) == 0 })
    }
}

/// Counts the `Counted` values let go.
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
    func add() { count.add(1, ordering: .acquiringAndReleasing) }
}

private final class Counted: Sendable {
    private let counter: Counter
    init(_ counter: Counter) { self.counter = counter }
    deinit { counter.add() }
}
