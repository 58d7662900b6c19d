import Logging
import Synchronization
import TailorLoop

/// A log for failures that may come in floods (a full disk fails every write):
/// at most `burst` lines per `interval`, then one line saying how many were
/// left out. Each failure is still counted, so none passes unseen.
public final class ThrottledLog: Sendable {
    private struct Window {
        var start: UInt64 = 0
        var written = 0
        var suppressed = 0
    }

    private let logger: Logger
    private let level: Logger.Level
    private let burst: Int
    private let interval: Double
    private let window = Mutex(Window())

    public init(logger: Logger, level: Logger.Level = .error, burst: Int = 10, interval: Double = 10) {
        self.logger = logger
        self.level = level
        self.burst = burst
        self.interval = interval
    }

    /// Logs `message` unless the interval's lines are used up; the line names
    /// the caller's module and place, not this type's.
    public func log(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Logger.Metadata? = nil,
                    file: String = #fileID, function: String = #function, line: UInt = #line) {
        let now = MonotonicClock.now
        let (write, leftOut) = window.withLock { window -> (Bool, Int) in
            var leftOut = 0
            if now >= window.start + UInt64(interval * 1e9) {
                leftOut = window.suppressed
                window = Window(start: now)
            }
            guard window.written < burst else {
                window.suppressed += 1
                return (false, leftOut)
            }
            window.written += 1
            return (true, leftOut)
        }
        if leftOut > 0 {
            logger.log(level: level, "\(leftOut) more like the lines above were left out", file: file, function: function, line: line)
        }
        if write { logger.log(level: level, "\(message())", metadata: metadata(), file: file, function: function, line: line) }
    }
}
