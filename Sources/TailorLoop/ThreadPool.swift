import Dispatch
import Synchronization

/// A fixed number of the server's own threads, named `name-0`, `name-1`, …,
/// that run jobs in the order given, each on whichever thread is free: work
/// that may block (a read of the database) goes here rather than on a loop,
/// where it would hold every connection of that loop, and the number of
/// threads bounds how much of it runs at once; the rest waits its turn.
///
/// Like `SerialThread` it needs no shutdown: once the last reference goes,
/// its threads run what is queued and end.
public final class ThreadPool: Sendable {
    private let jobs = SharedJobs()
    private let threads: [OwnThread]

    /// Starts `count` threads (at least one).
    public init(name: String, count: Int) {
        let jobs = self.jobs
        threads = (0..<max(count, 1)).map { index in OwnThread(name: "\(name)-\(index)") { jobs.runUntilClosed() } }
    }

    deinit {
        jobs.close(threads: threads.count)
        // This may be one of the threads itself, when a job held the last reference.
        for thread in threads { thread.detach() }
    }

    /// The number of threads.
    public var count: Int { threads.count }

    /// Runs `job` on the next free thread.
    public func async(_ job: @escaping @Sendable () -> Void) {
        jobs.append(job)
    }

    /// Runs `body` on the next free thread, while the caller's task waits,
    /// and returns what it returned.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            jobs.append { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// The jobs waiting for a `ThreadPool`: one queue, and a count of them that
/// wakes one sleeping thread per job.
private final class SharedJobs: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        /// The next job to take: taken ones are dropped in bulk, not one by
        /// one, once they are all of the queue or half of a long one.
        var next = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)

    func append(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.waiting.append(job) }
        ready.signal()
    }

    /// Ends every thread once what is queued has run.
    func close(threads: Int) {
        state.withLock { $0.closed = true }
        for _ in 0..<threads { ready.signal() }
    }

    /// Runs jobs as they come, until closed and empty.
    func runUntilClosed() {
        while true {
            ready.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.next < state.waiting.count else { return nil }
                let job = state.waiting[state.next]
                state.next += 1
                if state.next == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.next = 0
                } else if state.next >= 64 && state.next * 2 >= state.waiting.count {
                    // A queue never empty under a steady load would otherwise keep every job taken.
                    state.waiting.removeFirst(state.next)
                    state.next = 0
                }
                return job
            }
            if let job {
                job()
            } else if state.withLock({ $0.closed }) {
                return
            }
        }
    }
}
