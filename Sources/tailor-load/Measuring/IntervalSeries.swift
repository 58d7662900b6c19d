import Glibc
import Synchronization
import TailorLoop

/// Latencies and the server's figures in each interval of a run (10 s by
/// default), so that a stall shows when it happened and beside what: a run's
/// percentiles alone hide a half-second pause once a minute.
final class IntervalSeries: Sendable {
    /// What one interval saw. Latencies count in the interval their answer (or
    /// event) arrived in.
    struct Interval: Sendable {
        var latencies: [String: LatencyHistogram] = [:]
        var serverCPUPercent: Double?
        /// Per thread name (see `ProcessProbe.threadCPUSeconds`).
        var threadCPUPercent: [String: Double]?
        var serverRSSMiB: Double?
        var databaseMiB: Double?
        var logMiB: Double?
    }

    let lengthSeconds: Double
    private let start: UInt64
    private let intervals = Mutex<[Interval]>([])

    init(start: UInt64, lengthSeconds: Double) {
        self.start = start
        self.lengthSeconds = lengthSeconds
    }

    func record(_ name: String, nanoseconds: UInt64, at time: UInt64) {
        let index = self.index(of: time)
        intervals.withLock { intervals in
            grow(&intervals, to: index)
            intervals[index].latencies[name, default: LatencyHistogram()].record(nanoseconds: nanoseconds)
        }
    }

    /// The server's figures at the end of the interval that holds `time`.
    func sample(at time: UInt64, server: ProcessProbe?, cpuPercent: Double?, threadCPUPercent: [String: Double]?, database: String?) {
        let index = self.index(of: time &- 1)
        let rss = server.map { Double($0.residentKiB.now) / 1024 }
        let databaseSize = database.flatMap(Self.mebibytes(of:))
        let logSize = database.flatMap { Self.mebibytes(of: $0 + "-wal") }
        intervals.withLock { intervals in
            grow(&intervals, to: index)
            intervals[index].serverCPUPercent = cpuPercent
            intervals[index].threadCPUPercent = threadCPUPercent
            intervals[index].serverRSSMiB = rss
            intervals[index].databaseMiB = databaseSize
            intervals[index].logMiB = logSize
        }
    }

    var all: [Interval] { intervals.withLock { $0 } }

    private func index(of time: UInt64) -> Int {
        time <= start ? 0 : Int(Double(time - start) / 1e9 / lengthSeconds)
    }

    private func grow(_ intervals: inout [Interval], to index: Int) {
        while intervals.count <= index { intervals.append(Interval()) }
    }

    private static func mebibytes(of path: String) -> Double? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Double(info.st_size) / 1_048_576
    }
}
