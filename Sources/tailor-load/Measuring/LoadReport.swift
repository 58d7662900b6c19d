/// A run's figures: a fixed-width table for people, JSON for machines.
struct LoadReport: Encodable {
    struct Latency: Encodable {
        let name: String
        let count: UInt64
        let p50Ms: Double
        let p90Ms: Double
        let p99Ms: Double
        let p999Ms: Double
        let maxMs: Double

        init(name: String, histogram: LatencyHistogram) {
            func ms(_ microseconds: UInt64) -> Double { Double(microseconds) / 1_000 }
            self.name = name
            count = histogram.count
            p50Ms = ms(histogram.percentile(0.5))
            p90Ms = ms(histogram.percentile(0.9))
            p99Ms = ms(histogram.percentile(0.99))
            p999Ms = ms(histogram.percentile(0.999))
            maxMs = ms(histogram.maximum)
        }
    }

    /// One interval of the run.
    struct Interval: Encodable {
        let startSeconds: Double
        let latencies: [Latency]
        let serverCPUPercent: Double?
        let threadCPUPercent: [String: Double]?
        let serverRSSMiB: Double?
        let databaseMiB: Double?
        let logMiB: Double?

        /// The longest latency of any kind in the interval.
        var worstMs: Double { latencies.map(\.maxMs).max() ?? 0 }

        /// The thread that used the most CPU in the interval, and how much.
        var busiestThread: (name: String, cpuPercent: Double)? {
            threadCPUPercent?.max { $0.value < $1.value }.map { ($0.key, $0.value) }
        }
    }

    struct Messages: Encodable {
        let scheduled: Int
        let accepted: Int
        let delivered: Int
        let lost: Int
    }

    /// Events of one name: how many, and their data's bytes.
    struct Events: Encodable {
        let name: String
        let count: Int
        let bytes: Int

        var meanBytes: Int { count == 0 ? 0 : bytes / count }
    }

    /// How often the servers' writers committed, and how many events
    /// (messages, read marks, …) a commit held on average.
    struct Commits: Encodable {
        let perSecond: Double
        let eventsPerCommit: Double

        init(_ commits: WriterCommits, seconds: Double) {
            perSecond = commits.commits / seconds
            eventsPerCommit = commits.commits > 0 ? commits.events / commits.commits : 0
        }
    }

    struct Process: Encodable {
        let cpuPercent: Double
        let rssMiB: Double
        let peakRssMiB: Double
    }

    /// The server's CPU over the run per message accepted, in user space and in the kernel.
    struct CPUPerMessage: Encodable {
        let microseconds: Double
        let userMicroseconds: Double
        let systemMicroseconds: Double

        init(user: Double, system: Double, messages: Int) {
            let perMessage = 1e6 / Double(max(messages, 1))
            userMicroseconds = user * perMessage
            systemMicroseconds = system * perMessage
            microseconds = userMicroseconds + systemMicroseconds
        }
    }

    let target: String
    let users: Int
    let subscribers: Int
    let readers: Int
    let rate: Double
    let durationSeconds: Double
    let seed: UInt64
    let routes: [Latency]
    /// From when each message was due, and from when its answer was read.
    let endToEnd: [Latency]
    let messages: Messages
    let requestsPerSecond: Double
    let messagesPerSecond: Double
    let eventsPerSecond: Double
    let events: [Events]
    let notModified: Int
    let errors: [String: Int]
    let viewModelsChecked: Int
    let viewModelsStale: Int
    let staleExamples: [String]
    let server: Process?
    let serverCPUPerMessage: CPUPerMessage?
    /// The server's threads' context switches over the run per message accepted.
    let serverContextSwitchesPerMessage: Double?
    /// The servers' commits over the run, from their `/metrics`.
    let commits: Commits?
    /// The server's threads over the run, busiest first.
    let threads: [ThreadLoad]?
    let serialCeilingMessagesPerSecond: Double?
    /// The thread that sets the serial ceiling.
    let serialCeilingThread: String?
    let client: Process
    let intervalSeconds: Double
    let intervals: [Interval]

    /// Intervals the worst-latency table shows.
    static let worstIntervalsShown = 5

    var errorCount: Int { errors.values.reduce(0, +) }
    var passed: Bool { errorCount == 0 && messages.lost == 0 && viewModelsStale == 0 && messages.accepted == messages.scheduled }

    var table: String {
        var lines: [String] = []
        lines.append("Tailor load: \(users) users, \(subscribers) streams, \(readers) readers, \(Self.number(rate, 0)) messages/s for \(Self.number(durationSeconds, 0)) s, seed \(seed), \(target)")
        lines.append("")
        lines.append(Self.row(["latency (ms)", "count", "p50", "p90", "p99", "p99.9", "max"]))
        for latency in routes + endToEnd {
            lines.append(Self.row([latency.name, "\(latency.count)", Self.number(latency.p50Ms, 2), Self.number(latency.p90Ms, 2),
                                   Self.number(latency.p99Ms, 2), Self.number(latency.p999Ms, 2), Self.number(latency.maxMs, 2)]))
        }
        lines.append("")
        lines.append("throughput     \(Self.number(messagesPerSecond, 1)) messages/s accepted, \(Self.number(requestsPerSecond, 1)) requests/s, \(Self.number(eventsPerSecond, 1)) events/s received, \(notModified) answers 304")
        lines.append("event data     " + events.map { "\($0.name) \($0.count) × \($0.meanBytes) B" }.joined(separator: ", "))
        lines.append("messages       scheduled \(messages.scheduled), accepted \(messages.accepted), delivered \(messages.delivered), lost \(messages.lost)")
        lines.append("view models    \(viewModelsChecked) compared with the server at the end, \(viewModelsStale) users' stale")
        for example in staleExamples { lines.append("               \(example)") }
        lines.append("errors         \(errors.isEmpty ? "none" : errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))")
        if let server {
            lines.append("server         CPU \(Self.number(server.cpuPercent, 0))% of one core, RSS \(Self.number(server.rssMiB, 1)) MiB (peak \(Self.number(server.peakRssMiB, 1)) MiB)")
        }
        if let cpu = serverCPUPerMessage {
            let switches = serverContextSwitchesPerMessage.map { ", \(Self.number($0, 2)) context switches" } ?? ""
            lines.append("  per message  \(Self.number(cpu.microseconds, 0)) µs of CPU (user \(Self.number(cpu.userMicroseconds, 0)), system \(Self.number(cpu.systemMicroseconds, 0)))\(switches)")
        }
        if let commits {
            lines.append("commits        \(Self.number(commits.perSecond, 0))/s, \(Self.number(commits.eventsPerCommit, 2)) events each")
        }
        for thread in threads ?? [] where thread.cpuPercent >= 0.5 {
            lines.append("  thread \(thread.name.padding(to: 16)) CPU \(Self.number(thread.cpuPercent, 0).padded(to: 3))% of one core, \(Self.number(thread.microsecondsPerMessage, 0)) µs per message, "
                + "switches \(Self.number(thread.voluntarySwitchesPerMessage, 2)) waiting + \(Self.number(thread.forcedSwitchesPerMessage, 2)) pre-empted")
        }
        if let ceiling = serialCeilingMessagesPerSecond, let thread = serialCeilingThread {
            lines.append("serial ceiling \(Self.number(ceiling, 0)) messages/s, when \(thread) would need a whole core (numbered threads grow with the cores)")
        }
        lines.append("load client    CPU \(Self.number(client.cpuPercent, 0))% of one core, RSS \(Self.number(client.rssMiB, 1)) MiB")
        lines += worstIntervalsTable
        lines.append(passed ? "result         passed: no errors, nothing lost, every view model current" : "result         FAILED")
        return lines.joined(separator: "\n")
    }

    /// The intervals with the longest latencies, worst first: when a stall
    /// happened, how long it was, and what the server looked like then.
    private var worstIntervalsTable: [String] {
        guard !intervals.isEmpty else { return [] }
        var lines = ["", "worst \(Self.number(intervalSeconds, 0))-second intervals of \(intervals.count) (max and p99 ms; the whole series is in --json)"]
        lines.append(Self.row(["from s", "send p99", "max", "e2e p99", "max", "CPU %", "RSS MiB", "log MiB", "busiest thread %"]))
        func latency(_ interval: Interval, _ name: String) -> Latency? { interval.latencies.first { $0.name == name } }
        for interval in intervals.sorted(by: { $0.worstMs > $1.worstMs }).prefix(Self.worstIntervalsShown) {
            let send = latency(interval, "POST /api/chats/:id/messages")
            let endToEnd = latency(interval, MessageLedger.fromDueName)
            func show(_ value: Double?, _ decimals: Int) -> String { value.map { Self.number($0, decimals) } ?? "-" }
            lines.append(Self.row([Self.number(interval.startSeconds, 0), show(send?.p99Ms, 2), show(send?.maxMs, 2),
                                   show(endToEnd?.p99Ms, 2), show(endToEnd?.maxMs, 2), show(interval.serverCPUPercent, 0),
                                   show(interval.serverRSSMiB, 1), show(interval.logMiB, 1),
                                   interval.busiestThread.map { "\($0.name) \(Self.number($0.cpuPercent, 0))" } ?? "-"]))
        }
        return lines
    }

    private static func row(_ cells: [String]) -> String {
        let first = cells[0].padding(to: 40)
        return first + cells.dropFirst().map { $0.padded(to: 9) }.joined()
    }

    static func number(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        guard decimals > 0 else { return "\(scaled)" }
        let whole = scaled / Int(scale)
        let fraction = String(abs(scaled % Int(scale)))
        return "\(whole).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
    }
}

extension String {
    /// Left-aligned in `width` columns.
    func padding(to width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
    /// Right-aligned in `width` columns.
    func padded(to width: Int) -> String { count >= width ? " " + self : String(repeating: " ", count: width - count) + self }
}
