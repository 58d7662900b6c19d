import Synchronization

/// What the simulated users experienced, gathered from every loop: latency per
/// route, errors by kind, and counts of events.
final class LoadStatistics: Sendable {
    struct State {
        var routes: [String: LatencyHistogram] = [:]
        var errors: [String: Int] = [:]
        var eventsReceived = 0
        /// By event name: how many came and their data's bytes.
        var events: [String: (count: Int, bytes: Int)] = [:]
        var notModified = 0
    }

    private let state = Mutex(State())
    /// Where latencies also go by interval, once the measured part starts.
    let series = Mutex<IntervalSeries?>(nil)

    func record(route: String, nanoseconds: UInt64, at time: UInt64) {
        state.withLock { $0.routes[route, default: LatencyHistogram()].record(nanoseconds: nanoseconds) }
        series.withLock { $0 }?.record(route, nanoseconds: nanoseconds, at: time)
    }

    /// `kind` is `status 404`, `timeout` or `connection`, with the route.
    func recordError(_ kind: String, route: String) {
        state.withLock { $0.errors["\(kind) \(route)", default: 0] += 1 }
    }

    func recordEvent(named name: String, bytes: Int) {
        state.withLock { state in
            state.eventsReceived += 1
            state.events[name, default: (0, 0)].count += 1
            state.events[name, default: (0, 0)].bytes += bytes
        }
    }
    func recordNotModified() { state.withLock { $0.notModified += 1 } }

    var snapshot: State { state.withLock { $0 } }

    /// Clears latencies and counts: the setup's requests are not the measurement.
    func reset() { state.withLock { $0 = State() } }
}
