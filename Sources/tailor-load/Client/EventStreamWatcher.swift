import CSystem
import Glibc
import Synchronization
import TailorLoop

/// Event streams read on a plain thread straight from epoll, with no task per
/// stream, for the fan-out measure: an event's arrival is timed as its read
/// returns, so the client adds as little as it can to the delay it measures.
///
/// Each stream counts the events named `eventName`: the first is the topic's
/// initial view model (the stream is ready), the next ones are the changes,
/// one after the other.
///
/// `@unchecked Sendable`: the counts are behind a mutex and the stop flag is
/// atomic; the per-stream state is touched only on the watcher's own thread.
final class EventStreamWatcher: @unchecked Sendable {
    private struct Counts {
        var ready = 0
        var failed = 0
        /// For each change, in order, when each stream had it.
        var arrivals: [[UInt64]] = []
    }

    private let epoll: Int32
    private let eventName: [UInt8]
    private let counts = Mutex(Counts())
    private let stopped = Atomic<Bool>(false)
    private var thread = pthread_t()

    // Touched only on the watcher's thread: per fd, the events seen and the
    // last bytes read, in case a name is split across two reads.
    private var seen: [Int32: Int] = [:]
    private var tails: [Int32: [UInt8]] = [:]

    init(eventName: String) throws {
        self.eventName = Array("event: \(eventName)\n".utf8)
        epoll = csystem_epoll_create()
        guard epoll >= 0 else { throw SystemError("epoll_create1") }
        let box = Unmanaged.passRetained(self)
        let status = pthread_create(&thread, nil, { argument in
            Unmanaged<EventStreamWatcher>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        precondition(status == 0, "pthread_create failed: \(status)")
    }

    /// Starts watching a connected, non-blocking socket.
    func watch(fd: Int32) throws {
        guard csystem_epoll_add(epoll, fd, UInt64(fd), 0) == 0 else { throw SystemError("epoll_ctl") }
    }

    var ready: Int { counts.withLock { $0.ready } }
    var failed: Int { counts.withLock { $0.failed } }
    /// Streams that had change `change` (0 for the first).
    func received(_ change: Int) -> Int { counts.withLock { change < $0.arrivals.count ? $0.arrivals[change].count : 0 } }
    /// Monotonic nanoseconds at which each stream had change `change`.
    func arrivals(_ change: Int) -> [UInt64] { counts.withLock { change < $0.arrivals.count ? $0.arrivals[change] : [] } }

    /// Ends the thread and waits for it; the sockets stay open.
    func stop() {
        stopped.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        close(epoll)
    }

    private func run() {
        let capacity = 512
        let events = UnsafeMutablePointer<csystem_ready_event>.allocate(capacity: capacity)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer {
            events.deallocate()
            buffer.deallocate()
        }
        while !stopped.load(ordering: .acquiring) {
            let count = csystem_epoll_wait(epoll, events, Int32(capacity), 50)
            for index in 0..<max(Int(count), 0) {
                read(Int32(truncatingIfNeeded: events[index].key), into: buffer)
            }
        }
    }

    private func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) {
        let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
        let now = MonotonicClock.now
        guard count != 0, !(count < 0 && csystem_errno() != EAGAIN && csystem_errno() != EINTR) else {
            _ = csystem_epoll_remove(epoll, fd)
            counts.withLock { $0.failed += 1 }
            return
        }
        guard count > 0 else { return }
        let bytes = (tails[fd] ?? []) + UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        var found = 0
        var rest = bytes[...]
        while let index = rest.firstIndex(ofBytes: eventName) {
            found += 1
            rest = rest[(index + eventName.count)...]
        }
        tails[fd] = Array(bytes.suffix(eventName.count - 1))
        guard found > 0 else { return }
        let before = seen[fd, default: 0]
        seen[fd] = before + found
        counts.withLock { counts in
            if before == 0 { counts.ready += 1 }
            // Events after the first are the changes: the second is change 0.
            for change in max(before, 1)..<(before + found) {
                while counts.arrivals.count < change { counts.arrivals.append([]) }
                counts.arrivals[change - 1].append(now)
            }
        }
    }
}
