import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorStore

/// The servers' presence signals over PostgreSQL's notifications: sent with
/// `pg_notify` on a connection and a thread (`presence`) of their own, and
/// heard by `LISTEN` on the feed's follower's connection, which hands them
/// here (`hear`): PostgreSQL wakes every listening connection at every
/// notification, the feed's included, so one listening connection a server
/// costs half the wake-ups of two. Nothing is stored: a signal is a
/// notification and no more, so typing costs the database no write.
///
/// When the connection fails it opens another after a growing pause and
/// says so (`connected`): signals sent meanwhile may be lost, and the driver
/// asks the others again. Signals waiting to be sent are at most
/// `maxWaiting`; past it the oldest are dropped, as a lost one would be.
///
/// What waits goes in as few transactions as it can (`transactions`): a
/// heartbeat's three signals wake each listening connection, and commit,
/// once rather than three times.
package final class PresenceChannel: Sendable {
    private let url: String
    /// Signals to send: added wherever presence runs, taken by the channel's thread.
    private let waiting = Mutex<[String]>([])
    /// What the listening connection heard: added by the feed's thread, taken by the channel's.
    private let heardNews = Mutex<[ChannelNews]>([])
    private let stopping = Atomic<Bool>(false)
    private let sentTransactions = Atomic<Int>(0)
    /// Ends the thread's wait: a signal to send, or the stop.
    private let wake: WakeSignal
    private let failures: ThrottledLog

    package static let maxWaiting = 10_000
    /// Added to the connection's application name.
    package static let applicationNameSuffix = "-presence"

    package init(url: String, logger: Logger) throws {
        self.url = url
        wake = try WakeSignal()
        failures = ThrottledLog(logger: logger, level: .warning)
    }

    /// Starts listening: `heard` gets each payload, `connected` is called on
    /// the channel's thread each time a connection is ready. The returned
    /// stop ends the thread and waits for it.
    package func start(heard: @escaping @Sendable (String) -> Void, connected: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let thread = OwnThread(name: "presence") { self.run(heard: heard, connected: connected) }
        return { [self] in
            stopping.store(true, ordering: .releasing)
            wake.signal()
            thread.join()
            wake.close()
        }
    }

    /// From the connection that listens for presence signals: a signal, or
    /// that it listens again after a failure (signals sent meanwhile are lost).
    package func hear(_ news: ChannelNews) {
        heardNews.withLock { heard in
            if heard.count >= Self.maxWaiting { heard.removeFirst(heard.count - Self.maxWaiting + 1) }
            heard.append(news)
        }
        wake.signal()
    }

    /// Sends `payloads` to every server, together.
    package func send(_ payloads: [String]) {
        guard !payloads.isEmpty else { return }
        waiting.withLock { waiting in
            waiting.append(contentsOf: payloads)
            if waiting.count > Self.maxWaiting { waiting.removeFirst(waiting.count - Self.maxWaiting) }
        }
        wake.signal()
    }

    /// The notifying transactions sent so far.
    package var transactions: Int { sentTransactions.load(ordering: .relaxed) }

    private func run(heard: (String) -> Void, connected: () -> Void) {
        ListeningConnection.keep(url: url, failing: "presence signals could not be sent or heard", log: { failures.log($0) }, wake: wake,
                                 isStopping: { stopping.load(ordering: .acquiring) },
                                 prepare: { connection in
                                     try Store.name(connection, with: Self.applicationNameSuffix)
                                     connected()
                                 },
                                 session: { connection in
                                     while !stopping.load(ordering: .acquiring) {
                                         try sendWaiting(on: connection)
                                         for news in heardNews.withLock({ $0.take() }) {
                                             switch news {
                                             case .listening: connected()
                                             case .payload(let payload): heard(payload)
                                             }
                                         }
                                         // Signalled for each signal to send, each heard, and the stop.
                                         wake.waitForSignal()
                                     }
                                     // The last signals: a stopping server's goodbye.
                                     try sendWaiting(on: connection)
                                 })
    }

    private func sendWaiting(on connection: PostgresConnection) throws {
        for run in Self.runs(of: waiting.withLock { $0.take() }) {
            try Store.notifyPresence(run, on: connection)
            sentTransactions.add(1, ordering: .relaxed)
        }
    }

    /// `payloads` in order, in runs that each hold a payload once: of one
    /// sent twice in a transaction PostgreSQL delivers one, and a user gone
    /// and back (`o`, `f`, `o`) must be heard so.
    package static func runs(of payloads: [String]) -> [[String]] {
        var runs: [[String]] = []
        var run: [String] = []
        var inRun: Set<String> = []
        for payload in payloads {
            if inRun.contains(payload) {
                runs.append(run)
                (run, inRun) = ([], [])
            }
            run.append(payload)
            inRun.insert(payload)
        }
        if !run.isEmpty { runs.append(run) }
        return runs
    }
}

private extension Array {
    /// The elements, leaving the array empty.
    mutating func take() -> [Element] {
        defer { removeAll() }
        return self
    }
}
