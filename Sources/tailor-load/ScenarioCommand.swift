import ArgumentParser
import FoundationEssentials
import Glibc
import TailorLoop

/// `tailor-load scenario`: simulated users chatting through a running Tailor,
/// with latencies, lost events and the server's CPU and memory reported.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Users sign up, pair into chats, follow them over event streams and send messages at a fixed rate."
    )

    @Option(help: "The server, as http://HOST:PORT; several --url share the users out over several servers of one database.")
    var url: [String]

    @Option(help: "Simulated users; they pair into chats.")
    var users = 100

    @Option(help: "Seconds of sending.")
    var duration = 10.0

    @Option(help: "Messages per second, all users together, on a fixed schedule.")
    var rate = 200.0

    @Option(help: "Extra clients polling /api/chats and /api/orders with If-None-Match.")
    var readers = 10

    @Option(help: "Seconds between one reader's requests.")
    var readerInterval = 0.1

    @Option(help: "Users who hold an event stream (default: all).")
    var subscribers: Int?

    @Option(help: "Seed for names and the order of senders (default: from the clock).")
    var seed: UInt64?

    @Option(help: "Fewest seconds between two 'mark read' of one user with new messages.")
    var markReadEvery = 1.0

    @Option(help: "Seconds before an unanswered request counts as a timeout.")
    var timeout = 10.0

    @Option(help: "Seconds to wait after the last message for streams to show it.")
    var drain = 10.0

    @Option(help: "The server's process id, for its CPU time and memory from /proc.")
    var serverPID: Int32?

    @Option(help: "Seconds of each interval of the report's series (latency, server CPU and memory over time).")
    var interval = 10.0

    @Option(help: "The server's SQLite file, for its size and its log's in the series.")
    var database: String?

    @Option(help: "Also write the report as JSON to this file.")
    var json: String?

    @Flag(help: "Streams ask for whole view models only, with no JSON Patches (by default they take patches, as the page and the Swift client do).")
    var whole = false

    @Flag(help: "Streams take JSON Patches and apply them, the final check comparing what they add up to: the default, named for older scripts.")
    var patches = false

    @Flag(help: "Each message follows a typing signal (POST /api/chats/ID/typing) on the sender's connection; the message's latency includes it.")
    var typing = false

    @Option(help: "Chats each user has: the partner's, where the run's messages go, and the rest with contacts made for it, one message each.")
    var chatsPerUser = 1

    @Flag(help: "With several --url, a chat's two users speak to one server (by default they are shared out in turn, each chat's two on different servers).")
    var chatsTogether = false

    @Option(help: "Orders each user has (placed before the run). Given, the streams follow the orders list too, and with every tenth message its sender places an order and pays it.")
    var ordersPerUser: Int?

    func validate() throws {
        guard !url.isEmpty, url.allSatisfy({ LoadTarget(url: $0) != nil }) else { throw ValidationError("--url must be http://HOST:PORT") }
        guard users >= 2 else { throw ValidationError("--users must be at least 2: users chat in pairs") }
        guard rate > 0, duration > 0 else { throw ValidationError("--rate and --duration must be positive") }
        guard interval >= 0.1, interval.isFinite else { throw ValidationError("--interval must be at least 0.1 seconds") }
        if let subscribers, !(0...users).contains(subscribers) { throw ValidationError("--subscribers must be 0…\(users)") }
        guard chatsPerUser >= 1 else { throw ValidationError("--chats-per-user must be at least 1") }
        if let ordersPerUser, ordersPerUser < 1 { throw ValidationError("--orders-per-user must be at least 1") }
        guard !(whole && patches) else { throw ValidationError("--whole and --patches say opposite things: give one") }
    }

    func run() async throws {
        ProcessSetup.prepareServerProcess()
        let targets = url.compactMap(LoadTarget.init(url:))
        let settings = ScenarioSettings(
            users: users, durationSeconds: duration, rate: rate, readers: readers, readerInterval: readerInterval,
            subscribers: subscribers ?? users, seed: seed ?? MonotonicClock.now % 1_000_000,
            markReadInterval: markReadEvery, requestTimeout: timeout, drainSeconds: drain, intervalSeconds: interval,
            databasePath: database, serverPID: serverPID, patches: !whole, typing: typing, chatsPerUser: chatsPerUser,
            ordersPerUser: ordersPerUser ?? 1, changesOrders: ordersPerUser != nil, chatsTogether: chatsTogether)
        let group = try EventLoopGroup(loopCount: 2)
        let scenario = Scenario(settings: settings, targets: targets, group: group)
        let server = serverPID.map(ProcessProbe.init(pid:))

        log("setting up \(users) users, \(chatsPerUser) chats and \(settings.ordersPerUser) orders each, and \(settings.subscribers) streams")
        try await scenario.setUp()
        log("sending \(Int(rate)) messages/s for \(Int(duration)) s")
        let serverCPU = server?.cpuTime
        let serverThreads = server?.threadCPUSeconds ?? [:]
        let serverSwitches = server?.threadContextSwitches ?? [:]
        let clientCPU = ProcessProbe.current.cpuSeconds
        let commitsBefore = await scenario.writerCommits()
        let elapsed = await scenario.run()
        let commitsAfter = await scenario.writerCommits()
        let serverSpent = server.map { probe in
            let (before, after) = (serverCPU ?? (0, 0), probe.cpuTime)
            return (user: after.user - before.user, system: after.system - before.system)
        }
        let serverSeconds = serverSpent.map { $0.user + $0.system } ?? 0
        let threadSeconds = server.map { (before: serverThreads, after: $0.threadCPUSeconds) }
        let switches = server.map { (before: serverSwitches, after: $0.threadContextSwitches) }
        let clientSeconds = ProcessProbe.current.cpuSeconds - clientCPU
        log("comparing the streams' last view models with the server's")
        let check = await scenario.checkFinalViewModels()
        await scenario.closeStreams()

        let report = makeReport(scenario: scenario, elapsed: elapsed, check: check, server: server.map { probe in
            let memory = probe.residentKiB
            return LoadReport.Process(cpuPercent: serverSeconds / elapsed * 100, rssMiB: Double(memory.now) / 1024, peakRssMiB: Double(memory.peak) / 1024)
        }, serverSpent: serverSpent, switches: switches, threadSeconds: threadSeconds, clientSeconds: clientSeconds, commits: commitsAfter.flatMap { after in
            commitsBefore.map { LoadReport.Commits(after - $0, seconds: elapsed) }
        })
        print(report.table)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try write(try encoder.encode(report), to: json)
        }
        if !report.passed { throw ExitCode(1) }
    }

    private func makeReport(scenario: Scenario, elapsed: Double, check: Scenario.FinalCheck,
                            server: LoadReport.Process?, serverSpent: (user: Double, system: Double)?, switches: (before: [String: ProcessProbe.ContextSwitches], after: [String: ProcessProbe.ContextSwitches])?, threadSeconds: (before: [String: Double], after: [String: Double])?,
                            clientSeconds: Double, commits: LoadReport.Commits?) -> LoadReport {
        let statistics = scenario.statistics.snapshot
        let counts = scenario.ledger.counts(hasStream: scenario.hasStream)
        let threads = threadSeconds.map { seconds in
            ThreadLoad.loads(from: seconds.before, to: seconds.after, switchesFrom: switches?.before ?? [:], to: switches?.after ?? [:],
                             seconds: elapsed, messages: counts.accepted)
        }
        let ceiling = threads.flatMap(ThreadLoad.serialCeiling(of:))
        let routes = statistics.routes.sorted { $0.key < $1.key }.map { LoadReport.Latency(name: $0.key, histogram: $0.value) }
        let requests = statistics.routes.values.reduce(0) { $0 + $1.count }
        let client = ProcessProbe.current.residentKiB
        return LoadReport(
            target: url.joined(separator: " "), users: users, subscribers: scenario.settings.subscribers, readers: readers, rate: rate,
            durationSeconds: duration, seed: scenario.settings.seed, routes: routes,
            endToEnd: [LoadReport.Latency(name: MessageLedger.fromDueName, histogram: counts.fromDue),
                       LoadReport.Latency(name: MessageLedger.fromAcceptedName, histogram: counts.fromAccepted)],
            messages: LoadReport.Messages(scheduled: counts.scheduled, accepted: counts.accepted, delivered: counts.delivered, lost: counts.lost),
            requestsPerSecond: Double(requests) / elapsed, messagesPerSecond: Double(counts.accepted) / elapsed,
            eventsPerSecond: Double(statistics.eventsReceived) / elapsed,
            events: statistics.events.sorted { $0.key < $1.key }.map { LoadReport.Events(name: $0.key, count: $0.value.count, bytes: $0.value.bytes) },
            notModified: statistics.notModified,
            errors: statistics.errors, viewModelsChecked: check.checked, viewModelsStale: check.stale, staleExamples: check.examples,
            server: server,
            serverCPUPerMessage: serverSpent.map { LoadReport.CPUPerMessage(user: $0.user, system: $0.system, messages: counts.accepted) },
            serverContextSwitchesPerMessage: switches.map { switches in
                let total = { (counted: [String: ProcessProbe.ContextSwitches]) in counted.values.reduce(0) { $0 + $1.total } }
                return Double(total(switches.after) - total(switches.before)) / Double(max(counts.accepted, 1))
            },
            commits: commits, threads: threads, serialCeilingMessagesPerSecond: ceiling?.rate, serialCeilingThread: ceiling?.thread,
            client: LoadReport.Process(cpuPercent: clientSeconds / elapsed * 100, rssMiB: Double(client.now) / 1024, peakRssMiB: Double(client.peak) / 1024),
            intervalSeconds: interval, intervals: intervals(scenario))
    }

    private func intervals(_ scenario: Scenario) -> [LoadReport.Interval] {
        let all = scenario.statistics.series.withLock { $0 }?.all ?? []
        return all.enumerated().map { index, interval in
            LoadReport.Interval(
                startSeconds: Double(index) * self.interval,
                latencies: interval.latencies.sorted { $0.key < $1.key }.map { LoadReport.Latency(name: $0.key, histogram: $0.value) },
                serverCPUPercent: interval.serverCPUPercent, threadCPUPercent: interval.threadCPUPercent, serverRSSMiB: interval.serverRSSMiB,
                databaseMiB: interval.databaseMiB, logMiB: interval.logMiB)
        }
    }

    private func log(_ text: String) {
        let line = Array("tailor-load: \(text)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    private func write(_ data: Data, to path: String) throws {
        guard let file = fopen(path, "w") else { throw ValidationError("cannot write \(path)") }
        defer { fclose(file) }
        _ = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    }
}
