import Dispatch
import Synchronization

/// A thread of the server's own that runs jobs one at a time, in the order
/// they were given: a serial queue whose work `top -H` and
/// `/proc/PID/task/*/stat` attribute to a name (`writer`, `feed`), so that
/// a stage that is busier than the others shows, where the anonymous workers of
/// a dispatch queue would hide it.
///
/// Like a dispatch queue it needs no shutdown: once the last reference to it
/// goes, its thread runs what is queued and ends.
public final class SerialThread: Sendable {
    private let jobs = JobList()
    private let thread: OwnThread

    /// Starts the thread, named `name` (its first 15 bytes).
    public init(name: String) {
        let jobs = self.jobs
        thread = OwnThread(name: name) { jobs.runUntilClosed() }
    }

    deinit {
        jobs.close()
        // This may be the thread itself, when a job held the last reference.
        thread.detach()
    }

    /// Runs `job` after the jobs given before it.
    public func async(_ job: @escaping @Sendable () -> Void) {
        jobs.append(job)
    }

    /// Runs `job` after the jobs given before it, and waits for it. Never call
    /// it from a job of this thread: it would wait for itself.
    public func sync<Failure: Error>(_ job: @escaping @Sendable () throws(Failure) -> Void) throws(Failure) {
        let outcome = Mutex<Result<Void, Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.append {
            let result = Result<Void, Failure>(catching: job)
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        try outcome.withLock { $0! }.get()
    }
}

/// The jobs waiting for a `SerialThread`, and the thread's sleep while none do.
private final class JobList: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        /// The thread sleeps on `wake` and must be woken for the next job.
        var sleeping = false
        var closed = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    func append(_ job: @escaping @Sendable () -> Void) {
        let sleeper = state.withLock { state in
            state.waiting.append(job)
            defer { state.sleeping = false }
            return state.sleeping
        }
        if sleeper { wake.signal() }
    }

    func close() {
        let sleeper = state.withLock { state in
            state.closed = true
            defer { state.sleeping = false }
            return state.sleeping
        }
        if sleeper { wake.signal() }
    }

    /// Runs jobs as they come, until the list is closed and empty.
    func runUntilClosed() {
        while true {
            let next = state.withLock { state -> [@Sendable () -> Void]? in
                if !state.waiting.isEmpty {
                    let taken = state.waiting
                    state.waiting = []
                    return taken
                }
                if state.closed { return nil }
                state.sleeping = true
                return []
            }
            guard let next else { return }
            if next.isEmpty {
                wake.wait()
                continue
            }
            for job in next { job() }
        }
    }
}

/// Tasks that prefer a serial thread run their jobs on it, one at a time:
/// a service group's code runs there, and its stops may block that thread
/// (the writer's last commit, the loops' end) without holding up any other.
extension SerialThread: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
