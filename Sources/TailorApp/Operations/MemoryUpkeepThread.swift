import Dispatch
import Logging
import Synchronization
import TailorLoop

/// Looks at the process every few seconds, on a thread of its own
/// (`upkeep`), and gives free heap memory back when `MemoryUpkeep` says so. A
/// trim walks every heap and takes milliseconds: on a loop's thread it held
/// every connection of that loop meanwhile.
final class MemoryUpkeepThread: Sendable {
    private let stopping = DispatchSemaphore(value: 0)
    private let thread = Mutex<OwnThread?>(nil)
    private let lookCount = Atomic<Int>(0)
    private let interval: Double
    private let openConnections: @Sendable () -> Int
    private let logger: Logger

    /// Looks every `interval` seconds once started, until stopped;
    /// `openConnections` counts the server's.
    init(interval: Double, openConnections: @escaping @Sendable () -> Int, logger: Logger) {
        self.interval = interval
        self.openConnections = openConnections
        self.logger = logger
    }

    /// Starts the thread, once.
    func start() {
        let (interval, openConnections, logger) = (interval, openConnections, logger)
        let started = OwnThread(name: "upkeep") { [self] in
            let process = ProcessProbe.current
            var upkeep = MemoryUpkeep(openConnections: openConnections(), residentKiB: process.residentKiB.now)
            while stopping.wait(timeout: .now() + interval) == .timedOut {
                lookCount.add(1, ordering: .relaxed)
                let before = process.residentKiB.now
                guard upkeep.shouldTrim(openConnections: openConnections(), residentKiB: before) else { continue }
                let start = MonotonicClock.now
                ProcessSetup.releaseFreeMemory()
                let milliseconds = Double(MonotonicClock.now - start) / 1_000_000
                let after = process.residentKiB.now
                upkeep.trimmed(openConnections: openConnections(), residentKiB: after)
                logger.info("""
                    gave free memory back to the system: resident \(before / 1024) → \(after / 1024) MiB \
                    in \((milliseconds * 10).rounded() / 10) ms
                    """)
            }
        }
        thread.withLock { $0 = started }
    }

    /// The thread as a part of the server, looking every `memoryUpkeepInterval` seconds.
    static func part(openConnections: @escaping @Sendable () -> Int, logger: Logger) -> Part {
        let upkeep = MemoryUpkeepThread(interval: Application.memoryUpkeepInterval, openConnections: openConnections, logger: logger)
        return Part("upkeep", start: { upkeep.start() }, stop: { upkeep.stop() })
    }

    /// Times the process was looked at so far.
    var looks: Int { lookCount.load(ordering: .relaxed) }

    /// Ends the thread and waits for it; again, it does nothing.
    func stop() {
        guard let thread = thread.withLock({ $0.take() }) else { return }
        stopping.signal()
        thread.join()
    }
}
