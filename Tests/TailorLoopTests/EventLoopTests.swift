import Synchronization
import TailorLoop
import Testing

/// A loop's work besides sockets: closures from other threads and tasks that
/// prefer it, without sockets.
@Suite struct EventLoopTests {
    @Test func closuresRunOnTheLoopInTheOrderGivenOutsideAnyTask() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Mutex<[Int]>([])
        let offLoop = Atomic<Int>(0)
        let inTask = Atomic<Int>(0)
        for index in 0..<1_000 {
            loop.execute {
                if !loop.inLoopThread { offLoop.add(1, ordering: .relaxed) }
                if withUnsafeCurrentTask(body: { $0 != nil }) { inTask.add(1, ordering: .relaxed) }
                seen.withLock { $0.append(index) }
            }
        }
        loop.executeAndWait {}
        #expect(seen.withLock { $0 } == Array(0..<1_000))
        #expect(offLoop.load(ordering: .relaxed) == 0)
        // A task for each would cost more to make and free than these closures do.
        #expect(inTask.load(ordering: .relaxed) == 0)
    }

    @Test func closuresAndTasksShareOneQueue() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let seen = Mutex<[String]>([])
        loop.execute { seen.withLock { $0.append("closure 1") } }
        await Task(executorPreference: loop) {
            #expect(loop.inLoopThread)
            seen.withLock { $0.append("task") }
        }.value
        loop.execute { seen.withLock { $0.append("closure 2") } }
        loop.executeAndWait {}
        #expect(seen.withLock { $0 } == ["closure 1", "task", "closure 2"])
    }

    /// A timer runs its closure on the loop, not before its time, and two
    /// timers in the order of their times, not of their making.
    @Test func timersRunOnTheLoopAfterTheirTimeInTheirOrder() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let fired = Mutex<[(name: String, at: UInt64, onLoop: Bool)]>([])
        let start = MonotonicClock.now
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.after(seconds: 0.2) {
                fired.withLock { $0.append(("later", MonotonicClock.now, loop.inLoopThread)) }
                done.resume()
            }
            loop.after(seconds: 0.05) { fired.withLock { $0.append(("sooner", MonotonicClock.now, loop.inLoopThread)) } }
        }
        let seen = fired.withLock { $0 }
        #expect(seen.map(\.name) == ["sooner", "later"])
        #expect(seen.allSatisfy { $0.onLoop })
        #expect(seen[0].at - start >= 50_000_000 && seen[1].at - start >= 200_000_000)
    }

    /// A task that sleeps on the loop's timers resumes on the loop, not
    /// before its time; one cancelled while it sleeps, or before it sleeps,
    /// throws at once rather than wait out its time.
    @Test func aSleepOnTheLoopEndsAtItsTimeOrAtItsCancellation() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let start = MonotonicClock.now
        let (woke, onLoop) = try await Task(executorPreference: loop) {
            try await loop.sleep(for: .milliseconds(50))
            return (MonotonicClock.now, loop.inLoopThread)
        }.value
        #expect(woke - start >= 50_000_000)
        #expect(onLoop)
        let sleeping = Atomic<Bool>(false)
        let long = Task(executorPreference: loop) {
            sleeping.store(true, ordering: .relaxed)
            try await loop.sleep(for: .seconds(600))
        }
        while !sleeping.load(ordering: .relaxed) { await Task.yield() }
        long.cancel()
        await #expect(throws: CancellationError.self) { try await long.value }
        let cancelledFirst = Task(executorPreference: loop) {
            withUnsafeCurrentTask { $0?.cancel() }
            try await loop.sleep(for: .seconds(600))
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
    }
}
