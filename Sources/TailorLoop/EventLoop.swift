import CSystem
import Glibc
import Synchronization

/// One thread that waits on epoll and runs the jobs of the tasks bound to it,
/// and closures other threads hand it (`execute`).
///
/// The loop is the `TaskExecutor` (and `SerialExecutor`) of its connections: a
/// connection's task starts on it and, whenever it resumes after waiting for a
/// socket, resumes here again. So a request whose answer is ready is read, parsed,
/// answered and written on one thread, without a hop.
///
/// Registrations live in a table indexed by fd; each carries a generation number,
/// packed with the fd into the epoll key, so an event for a closed fd is never
/// delivered to a newer connection that reused the same number.
///
/// `@unchecked Sendable`: what other threads touch is atomic or behind the job
/// queue's mutex; the rest is touched only on the loop thread (asserted at
/// each loop-only entry point).
public final class EventLoop: @unchecked Sendable {
    public let index: Int
    let epoll: Int32
    private let wakeFD: Int32
    private let stopped = Atomic<Bool>(false)
    /// The loop thread's `pthread_self()`, readable from any thread.
    private let threadID = Atomic<UInt>(0)
    /// Touched only by the thread that starts and stops the loop.
    private var joinHandle: pthread_t?

    // Touched only on the loop thread.
    private var slots: [Slot] = []
    private var timedCount = 0
    private var nextDeadlineScan: UInt64 = 0
    private var runnable: [Work] = []
    private var timers = LoopTimers()

    // Shared with every thread that hands the loop work.
    private let queue = Mutex(WorkQueue())

    private struct Slot {
        var generation: UInt32 = 0
        var item: (any Selectable)?
        var timed = false
    }

    /// What the loop runs besides its sockets' readiness, in the order given.
    enum Work {
        /// A job of a task that prefers this loop as its executor.
        case job(UnownedJob)
        /// A closure from `execute`: run as it is, without a task of its own,
        /// whose making and freeing cost more than most of these closures.
        case closure(@Sendable () -> Void)
    }

    struct WorkQueue {
        var waiting: [Work] = []
        /// The loop is (about to be) blocked in epoll_wait and needs the eventfd to wake.
        var sleeping = false
    }

    /// How often deadlines are checked while some registration has one.
    static let deadlineScanInterval: UInt64 = 250_000_000

    init(index: Int) throws {
        self.index = index
        epoll = csystem_epoll_create()
        guard epoll >= 0 else { throw SystemError("epoll_create1") }
        wakeFD = csystem_eventfd()
        guard wakeFD >= 0 else { throw SystemError("eventfd") }
        guard csystem_epoll_add(epoll, wakeFD, UInt64.max, 0) == 0 else { throw SystemError("epoll_ctl") }
    }

    deinit {
        close(wakeFD)
        close(epoll)
    }

    /// Whether the caller runs on this loop's thread.
    public var inLoopThread: Bool {
        threadID.load(ordering: .relaxed) == pthread_self()
    }

    // MARK: - Registration (loop thread only)

    /// Watches `item.fd`; `timed` items are checked against their deadline.
    func register(_ item: any Selectable, options: Int32, timed: Bool) throws {
        assert(inLoopThread, "registered off event loop \(index)")
        let fd = Int(item.fd)
        if fd >= slots.count {
            slots.append(contentsOf: repeatElement(Slot(), count: max(fd + 1 - slots.count, slots.count)))
        }
        slots[fd].generation &+= 1
        slots[fd].item = item
        slots[fd].timed = timed
        if timed { timedCount += 1 }
        let key = UInt64(slots[fd].generation) << 32 | UInt64(UInt32(fd))
        guard csystem_epoll_add(epoll, item.fd, key, options) == 0 else {
            let error = SystemError("epoll_ctl")
            forget(fd: item.fd)
            throw error
        }
    }

    /// Stops watching `fd`. Closing an fd removes it from epoll by itself, so
    /// this only clears the table; call it before `close`.
    func forget(fd: Int32) {
        assert(inLoopThread, "forgotten off event loop \(index)")
        let fd = Int(fd)
        guard fd < slots.count, slots[fd].item != nil else { return }
        if slots[fd].timed { timedCount -= 1 }
        slots[fd].item = nil
        slots[fd].timed = false
    }

    /// Every connection registered here, for a shutdown sweep.
    func forEachRegistration(_ body: (any Selectable) -> Void) {
        assert(inLoopThread, "registrations read off event loop \(index)")
        for slot in slots { if let item = slot.item { body(item) } }
    }

    // MARK: - Running

    func start() {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
            loop.run()
            return nil
        }, box.toOpaque())
        precondition(status == 0, "pthread_create failed: \(status)")
        joinHandle = thread
    }

    /// Asks the loop to end after its current iteration, and waits for its thread.
    func stopAndJoin() {
        stopped.store(true, ordering: .releasing)
        _ = csystem_eventfd_signal(wakeFD)
        if let joinHandle, !inLoopThread { pthread_join(joinHandle, nil) }
        joinHandle = nil
    }

    private func run() {
        threadID.store(pthread_self(), ordering: .relaxed)
        _ = csystem_set_thread_name("loop-\(index)")
        let capacity = 256
        let events = UnsafeMutablePointer<csystem_ready_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while !stopped.load(ordering: .acquiring) {
            let timeout = nextTimeout()
            let count = csystem_epoll_wait(epoll, events, Int32(capacity), timeout)
            queue.withLock { $0.sleeping = false }
            if count < 0 {
                let code = csystem_errno()
                if code == EINTR { continue }
                fatalError("\(SystemError("epoll_wait", code: code))")
            }
            for index in 0..<Int(count) {
                dispatch(events[index])
            }
            runWork()
            runTimers()
            if timedCount > 0, MonotonicClock.now >= nextDeadlineScan {
                scanDeadlines()
            }
        }
        runWork()
    }

    /// 0 when work waits; else until the first timer or the next deadline
    /// scan when something is timed, in whole milliseconds rounded up;
    /// otherwise forever, so that an idle server uses no CPU.
    private func nextTimeout() -> Int32 {
        let hasWork = queue.withLock { queue -> Bool in
            if queue.waiting.isEmpty {
                queue.sleeping = true
                return false
            }
            return true
        }
        if hasWork { return 0 }
        let now = MonotonicClock.now
        var wake = timers.nextDue ?? .max
        if timedCount > 0 {
            if nextDeadlineScan <= now { nextDeadlineScan = now + Self.deadlineScanInterval }
            wake = min(wake, nextDeadlineScan)
        }
        guard wake != .max else { return -1 }
        guard wake > now else { return 0 }
        return Int32(min((wake - now) / 1_000_000 + 1, UInt64(Int32.max)))
    }

    /// Runs `body` on the loop's thread once `due` (MonotonicClock) has come;
    /// from any thread (see `after`).
    func addTimer(due: UInt64, _ body: @escaping @Sendable () -> Void) {
        guard inLoopThread else {
            enqueue(.closure { [self] in timers.add(due: due, body) })
            return
        }
        timers.add(due: due, body)
    }

    /// Runs the timers that are due; what they start runs in the next turn.
    private func runTimers() {
        guard let first = timers.nextDue, first <= MonotonicClock.now else { return }
        for body in timers.takeDue(by: MonotonicClock.now) { body() }
    }

    private func dispatch(_ event: csystem_ready_event) {
        if event.key == UInt64.max {
            _ = csystem_eventfd_drain(wakeFD)
            return
        }
        let fd = Int(UInt32(truncatingIfNeeded: event.key))
        let generation = UInt32(truncatingIfNeeded: event.key >> 32)
        guard fd < slots.count, slots[fd].generation == generation, let item = slots[fd].item else { return }
        item.ready(flags: event.flags)
    }

    private func scanDeadlines() {
        let now = MonotonicClock.now
        nextDeadlineScan = now + Self.deadlineScanInterval
        for slot in slots where slot.timed {
            if let item = slot.item, item.deadline != 0, item.deadline <= now {
                item.deadlinePassed()
            }
        }
    }

    /// Runs what is queued, and what that queues in turn, a bounded number of
    /// rounds so that sockets are polled again between long chains of work.
    private func runWork() {
        for _ in 0..<16 {
            queue.withLock { swap(&$0.waiting, &runnable) }
            if runnable.isEmpty { return }
            for work in runnable {
                switch work {
                case .job(let job):
                    // As the task executor only: our tasks are nonisolated, and a job
                    // run isolated to the loop as a serial executor would make each
                    // call into a nonisolated async function switch executors, that
                    // is, queue the task here again (seen as most of a stream
                    // delivery's user time).
                    job.runSynchronously(on: asUnownedTaskExecutor())
                case .closure(let body):
                    body()
                }
            }
            runnable.removeAll(keepingCapacity: true)
        }
    }

    func enqueue(_ work: Work) {
        let mustWake = queue.withLock { queue -> Bool in
            queue.waiting.append(work)
            defer { queue.sleeping = false }
            return queue.sleeping
        }
        if mustWake { _ = csystem_eventfd_signal(wakeFD) }
    }
}

extension EventLoop: SerialExecutor, TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        enqueue(.job(UnownedJob(job)))
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(inLoopThread, "expected to run on event loop \(index)")
    }
}

extension EventLoop {
    /// Fails every connection of this loop that waits idle for a request, so its
    /// task ends; connections busy with a request go on. Call on the loop thread.
    public func closeIdleConnections() {
        forEachRegistration { item in
            if let connection = item as? SocketConnection, connection.isIdle {
                connection.interrupt(.shuttingDown)
            }
        }
    }
}
