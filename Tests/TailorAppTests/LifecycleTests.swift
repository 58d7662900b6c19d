import Dispatch
import Logging
import Synchronization
@testable import TailorApp
import TailorLoop
import Testing

/// The server's parts run as one group: all start before `start` returns,
/// they stop in the reverse of their order, one that cannot start stops the
/// others and says why, and `start` and `shutdown` may be waited for on
/// every thread of the shared pool at once.
struct LifecycleTests {
    /// What the parts did, in order.
    final class Journal: Sendable {
        private let lines = Mutex<[String]>([])

        func note(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }

        func part(_ name: String, failing: Bool = false) -> Part {
            Part(name, start: {
                if failing { throw Refused() }
                self.note("start \(name)")
                return { self.note("stop \(name)") }
            })
        }
    }

    struct Refused: Error {}

    /// Since when each group has been starting or stopping, by its number,
    /// and when the first began.
    final class Busy: Sendable {
        private let since = Mutex<(groups: [Int: UInt64], first: UInt64?)>(([:], nil))

        func note(_ group: Int, since time: UInt64?) {
            since.withLock { state in
                state.groups[group] = time
                state.first = state.first ?? time
            }
        }
        var oldest: UInt64? { since.withLock { $0.groups.values.min() } }
        var first: UInt64? { since.withLock { $0.first } }
    }

    @Test func everyPartStartsThenTheyStopInTheReverseOfTheirOrder() throws {
        let journal = Journal()
        let lifecycle = Lifecycle(parts: ["writer", "feed", "http", "readiness"].map { journal.part($0) }, logger: Logger(label: "test"))
        try lifecycle.start()
        #expect(Set(journal.all) == ["start writer", "start feed", "start http", "start readiness"])
        lifecycle.shutdown()
        #expect(journal.all.suffix(4) == ["stop readiness", "stop http", "stop feed", "stop writer"])
        lifecycle.shutdown()
        #expect(journal.all.count == 8, "a second shutdown does nothing")
    }

    @Test func aPartThatCannotStartStopsTheOthersAndSaysWhich() throws {
        let journal = Journal()
        let lifecycle = Lifecycle(parts: [journal.part("writer"), journal.part("http", failing: true)], logger: Logger(label: "test"))
        #expect(throws: Startup.PartFailure.self) { try lifecycle.start() }
        #expect(journal.all.contains("start writer") && journal.all.last == "stop writer")
        #expect(!journal.all.contains("stop http"))
    }

    /// Tests, and a command's threads, wait for `start` and `shutdown`: with
    /// every thread of the shared pool waiting at once, the groups still
    /// start and stop (the group's own waits never need that pool). Were
    /// they to hang, nothing on the pool could say so: a thread of the
    /// test's own ends the run with the reason instead, once one group has
    /// been starting or stopping for half a minute (the tasks themselves may
    /// wait longer for a thread, behind other tests), or when they have not
    /// all ended five minutes after the first began. (Before the first
    /// begins, the pool may be taken by other tests for long on a busy
    /// machine: that is no hang of these.)
    @Test func startAndShutdownMayBlockEveryThreadOfTheSharedPool() async throws {
        let count = ProcessSetup.usableCPUCount * 2
        let journal = Journal()
        let busySince = Busy()
        let done = DispatchSemaphore(value: 0)
        let watchdog = OwnThread(name: "test-watchdog") {
            while done.wait(timeout: .now() + 1) == .timedOut {
                let oldest = busySince.oldest
                if let oldest, MonotonicClock.now - oldest > 30_000_000_000 {
                    fatalError("a service group did not start and stop with every thread of the shared pool waiting for it")
                }
                if let first = busySince.first, MonotonicClock.now - first > 300_000_000_000 {
                    fatalError("the service groups did not all start and stop within five minutes of the first")
                }
            }
        }
        defer {
            done.signal()
            watchdog.join()
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for index in 0..<count {
                tasks.addTask {
                    busySince.note(index, since: MonotonicClock.now)
                    let lifecycle = Lifecycle(parts: [journal.part("a\(index)"), journal.part("b\(index)")], logger: Logger(label: "test"))
                    try lifecycle.start()
                    lifecycle.shutdown()
                    busySince.note(index, since: nil)
                }
            }
            try await tasks.waitForAll()
        }
        #expect(journal.all.filter { $0.hasPrefix("stop") }.count == 2 * count)
    }
}
