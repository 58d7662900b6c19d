import Dispatch
import Synchronization
import TailorStore

/// What operators, the command and tests ask of a running server.
extension Application {
    /// Seconds between looks at the connections closed and the resident size.
    static let memoryUpkeepInterval = 5.0

    /// Open event streams, for tests and monitoring.
    public var streamCount: Int { streams.subscriberCount }

    /// Builds every followed view model again and sends it, as at midnight
    /// when date texts change; for tests of the order streams see.
    public func republishFollowedViewModels() {
        streams.republishAll()
    }

    /// What the midnight ticker does: every view model dropped from the cache
    /// and every followed one built again, sent only where its bytes changed.
    public func rebuildAsAtMidnight() {
        Ticker.rebuildAsAtMidnight(cache: viewCache, streams: streams)
    }

    /// Waits until `condition` holds for the number of open connections, or
    /// `timeout` seconds pass; whether it holds. A stream has left every index
    /// and released its bytes before its connection counts as closed.
    public func waitForConnections(timeout: Double = 5, until condition: (Int) -> Bool) -> Bool {
        server.waitForConnections(timeout: timeout, until: condition)
    }

    /// Events queued on streams and not yet written: bounded by the topics each
    /// stream follows, however slowly it reads.
    /// Waits for the lanes' loops: read it from a thread that may block.
    public var queuedStreamEvents: Int { streams.queuedEventCountWaiting() }

    /// Bytes held for unsent stream events (an upper bound: shared bytes count
    /// once per stream).
    public var heldStreamBytes: Int { streams.memory.total }

    /// The port listened on, the chosen one when configured with 0.
    public var port: Int { server.port }
    public var host: String { configuration.server.host }

    /// Adds the demo data when asked and the database has none; returns the
    /// demo users' tokens when it did. Once started: its writes wait for the feed.
    public func seedDemoIfAsked() throws -> (alice: String, bob: String)? {
        guard configuration.demo else { return nil }
        // Set by the task that seeds, read by this thread once it is signalled.
        let result = Mutex<Result<DemoData.Tokens?, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let events = events
        let database = database
        Task {
            let outcome = await Result(catching: { try await DemoData.seed(events: events, database: database) })
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get().map { ($0.alice, $0.bob) }
    }

    /// Opens the access log's file anew (after it was moved for rotation),
    /// once the lines handed over so far are written to the old one.
    public func reopenLogs() {
        accessLog?.reopen()
    }

    /// Accounts were disabled beside this server (`tailor users disable` on
    /// its SQLite file, then SIGUSR1): the streams and remembered tokens of
    /// every disabled account it holds end now. Answers how many accounts.
    /// Waits for the lanes' loops: call it from a thread that may block.
    @discardableResult
    public func endDisabledAccounts() throws -> Int {
        let held = streams.usersWaiting().union(credentials.users)
        let disabled = try database.read { try $0.disabled(among: held.sorted()) }
        for user in disabled {
            credentials.forget(user: user)
            streams.endStreams(ofUser: user)
        }
        return disabled.count
    }

    /// Waits until every access-log line handed over is written.
    public func flushAccessLog() {
        accessLog?.flush()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
