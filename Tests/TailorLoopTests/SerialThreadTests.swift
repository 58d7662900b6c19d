import Glibc
import Synchronization
import TailorLoop
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
        thread.async {
            usleep(50_000)
            done.store(true, ordering: .releasing)
        }
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
            let text = Self.comm(of: "/proc/thread-self/comm")
            name.withLock { $0 = text }
        }
        #expect(name.withLock { $0 } == "test-named")
    }

    /// Like a dispatch queue, it needs no shutdown: once nothing holds it,
    /// its thread runs what is queued and ends.
    @Test func itsThreadEndsOnceNothingHoldsIt() {
        let ran = Atomic<Bool>(false)
        do {
            let thread = SerialThread(name: "test-ends")
            thread.async {
                usleep(20_000)
                ran.store(true, ordering: .releasing)
            }
        }
        // The job runs on the thread, so the thread was there and named; it
        // ends after the job.
        let giveUp = MonotonicClock.after(seconds: 30)
        while !ran.load(ordering: .acquiring) && MonotonicClock.now < giveUp { usleep(5_000) }
        let queuedRan = ran.load(ordering: .acquiring)
        #expect(queuedRan, "what was queued runs")
        while Self.threads(named: "test-ends") > 0 && MonotonicClock.now < giveUp { usleep(5_000) }
        #expect(Self.threads(named: "test-ends") == 0)
    }

    /// Threads of this process with `name`, from /proc.
    private static func threads(named name: String) -> Int {
        guard let directory = opendir("/proc/self/task") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let task = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if Int(task) != nil, comm(of: "/proc/self/task/\(task)/comm") == name { count += 1 }
        }
        return count
    }

    /// A thread's name, from its `comm` file.
    private static func comm(of path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 32)
        guard fgets(&line, 32, file) != nil else { return "" }
        return String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
