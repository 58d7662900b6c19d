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

    /// Starts the thread, once; the returned stop ends it and waits for it.
    func start() -> Part.Stop {
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
        return { [self] in
            stopping.signal()
            started.join()
        }
    }

    /// The thread as a part of the server, looking every `memoryUpkeepInterval` seconds.
    static func part(openConnections: @escaping @Sendable () -> Int, logger: Logger) -> Part {
        let upkeep = MemoryUpkeepThread(interval: Application.memoryUpkeepInterval, openConnections: openConnections, logger: logger)
        return Part("upkeep", start: { upkeep.start() })
    }

    /// Times the process was looked at so far.
    var looks: Int { lookCount.load(ordering: .relaxed) }
}
