import TailorLoop

/// The CPU one of the server's threads (or its anonymous workers together)
/// spent during a run, per message: the busiest thread's share is the run's
/// serial ceiling, the rate no number of cores lifts while that thread does
/// the same work per message.
struct ThreadLoad: Encodable {
    let name: String
    let cpuPercent: Double
    let microsecondsPerMessage: Double

    /// The CPU seconds each thread name spent between two readings of
    /// `ProcessProbe.threadCPUSeconds`. A thread that ended in between is
    /// missing from `after`, and counts nothing.
    static func spent(from before: [String: Double], to after: [String: Double]) -> [String: Double] {
        after.reduce(into: [:]) { spent, thread in spent[thread.key] = max(thread.value - before[thread.key, default: 0], 0) }
    }

    /// Every thread's load over `seconds` in which `messages` were accepted,
    /// busiest first.
    static func loads(from before: [String: Double], to after: [String: Double], seconds: Double, messages: Int) -> [ThreadLoad] {
        spent(from: before, to: after)
            .map { ThreadLoad(name: $0.key, cpuPercent: $0.value / seconds * 100, microsecondsPerMessage: $0.value * 1e6 / Double(max(messages, 1))) }
            .sorted { $0.cpuPercent > $1.cpuPercent }
    }

    /// Messages per second at which the busiest of `loads` would need a
    /// whole core; nil when no thread did any work.
    static func serialCeiling(of loads: [ThreadLoad]) -> Double? {
        guard let busiest = loads.first, busiest.microsecondsPerMessage > 0 else { return nil }
        return 1e6 / busiest.microsecondsPerMessage
    }
}
