import Dispatch
import Glibc
import Synchronization
import TailorLoop
import TailorTestSupport
import Testing

/// A serial queue on a named thread of its own, without sockets.
@Suite struct SerialThreadTests {
    private struct Refused: Error, Equatable {}

    @Test func jobsRunOneAtATimeInTheOrderGiven() throws {
        let thread = SerialThread(name: "test-order")
        let seen = Mutex<[Int]>([])
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        for index in 0..<1_000 {
            thread.async {
                if running.add(1, ordering: .acquiringAndReleasing).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
                seen.withLock { $0.append(index) }
                running.subtract(1, ordering: .acquiringAndReleasing)
            }
        }
        thread.sync {}
        #expect(seen.withLock { $0 } == Array(0..<1_000))
        let didOverlap = overlapped.load(ordering: .relaxed)
        #expect(!didOverlap)
    }

    @Test func syncWaitsForWhatCameBeforeAndPassesItsErrorOn() {
        let thread = SerialThread(name: "test-sync")
        let done = Atomic<Bool>(false)
        let syncing = Atomic<Bool>(false)
        thread.async {
            // Work still running when `sync` is called: `sync` must wait for
            // it, not only queue behind it.
            #expect(eventually { syncing.load(ordering: .acquiring) })
            done.store(true, ordering: .releasing)
        }
        syncing.store(true, ordering: .releasing)
        #expect(throws: Refused()) {
            try thread.sync { () throws(Refused) in
                let before = done.load(ordering: .acquiring)
                #expect(before)
                throw Refused()
            }
        }
    }

    @Test func itsThreadCarriesItsName() {
        let thread = SerialThread(name: "test-named")
        let name = Mutex<String>("")
        thread.sync {
            let text = ThreadNames.current
            name.withLock { $0 = text }
        }
        #expect(name.withLock { $0 } == "test-named")
    }

    /// Like a dispatch queue, it needs no shutdown: once nothing holds it,
    /// its thread runs what is queued and ends.
    @Test func itsThreadEndsOnceNothingHoldsIt() {
        let ran = Atomic<Bool>(false)
        let letGo = DispatchSemaphore(value: 0)
        do {
            let thread = SerialThread(name: "test-ends")
            thread.async {
                // The thread is let go of with this still running.
                letGo.wait()
                ran.store(true, ordering: .releasing)
            }
        }
        letGo.signal()
        // The job runs on the thread, so the thread was there and named; it
        // ends after the job.
        #expect(eventually(timeout: 30) { ran.load(ordering: .acquiring) }, "what was queued runs")
        #expect(eventually(timeout: 30) { ThreadNames.threads(named: "test-ends") == 0 })
    }
}
