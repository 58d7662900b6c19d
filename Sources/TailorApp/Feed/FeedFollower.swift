import CSystem
import Glibc
import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorStore

/// Follows the change feed of a PostgreSQL database that several servers
/// write: reads its entries past the last one applied, strictly in position
/// order, and hands each to the handler, this server's own commits included.
///
/// It runs on a thread of its own with a connection of its own, which LISTENs
/// for the notification each commit sends. A notification only wakes it: the
/// table is the truth, so a missed one costs at most `pollInterval`, after
/// which it reads anyway. When the connection fails (the database restarts)
/// it opens another after a growing pause, and reads on from where it was.
final class FeedFollower: Sendable {
    private struct State {
        var applied: Int
        /// Answers to give once the feed is applied up to their position.
        var waiting: [(position: Int, answer: @Sendable () -> Void)] = []
        var stopping = false
    }

    private let url: String
    private let handler: EventHandler
    private let state: Mutex<State>
    private let wake: Int32
    private let failures: ThrottledLog
    private let thread = Mutex<OwnThread?>(nil)

    /// Seconds between reads of the feed when no notification came.
    static let pollInterval = 0.25
    /// Entries read and applied in one transaction.
    static let batchSize = 500

    init(url: String, handler: EventHandler, from position: Int, logger: Logger) {
        self.url = url
        self.handler = handler
        state = Mutex(State(applied: position))
        wake = csystem_eventfd()
        failures = ThrottledLog(logger: logger, level: .error)
    }

    func start() {
        thread.withLock { $0 = OwnThread(name: "feed") { self.run() } }
    }

    func stop() {
        state.withLock { $0.stopping = true }
        _ = csystem_eventfd_signal(wake)
        thread.withLock { $0 }?.join()
        close(wake)
    }

    /// The position this server has applied up to.
    var applied: Int { state.withLock { $0.applied } }

    /// Calls `answer` once the feed is applied up to `position` (at once when
    /// it is), and reads the feed now rather than at the next notification.
    func whenApplied(_ position: Int, _ answer: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.applied < position else { return true }
            state.waiting.append((position, answer))
            return false
        }
        if now { answer() } else { _ = csystem_eventfd_signal(wake) }
    }

    private func run() {
        var pause = 0.05
        while !state.withLock({ $0.stopping }) {
            do {
                let connection = try PostgresConnection(url: url)
                let schema = try connection.first("SELECT current_schema()", binding: []) { $0.text(0) } ?? "public"
                try connection.execute("LISTEN \(Self.channel(of: schema))")
                pause = 0.05
                try follow(on: connection)
            } catch {
                failures.log("the change feed could not be read, trying again in \(Int(pause * 1000)) ms: \(error)")
                sleepOrWake(seconds: pause, socket: nil)
                pause = min(pause * 2, 2)
            }
        }
    }

    /// Applies what is new, then waits for a notification, a local commit or
    /// the poll interval, until told to stop.
    private func follow(on connection: PostgresConnection) throws {
        while !state.withLock({ $0.stopping }) {
            while try applyNext(on: connection) == Self.batchSize {}
            sleepOrWake(seconds: Self.pollInterval, socket: connection.socket)
            _ = try connection.takeNotifications()
        }
    }

    /// Reads and applies the next entries in one snapshot; returns how many.
    private func applyNext(on connection: PostgresConnection) throws -> Int {
        let from = state.withLock { $0.applied }
        let store = Store(connection)
        let count = try connection.readTransaction { () throws -> Int in
            let rows = try store.changes(after: from, limit: Self.batchSize)
            for row in rows {
                do {
                    handler.committed(FeedEntry(position: row.position, changes: try ChangeEncoding.changes(from: row.body)), store: store)
                } catch {
                    // Written by a newer version of the server, or damaged: the
                    // feed goes on without it rather than stop here for good.
                    failures.log("the change feed's entry \(row.position) was skipped: \(error)")
                }
                state.withLock { $0.applied = row.position }
            }
            return rows.count
        }
        answerWaiting()
        return count
    }

    private func answerWaiting() {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            let applied = state.applied
            let due = state.waiting.filter { $0.position <= applied }.map(\.answer)
            state.waiting.removeAll { $0.position <= applied }
            return due
        }
        for answer in due { answer() }
    }

    private func sleepOrWake(seconds: Double, socket: Int32?) {
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&descriptors, nfds_t(descriptors.count), Int32(seconds * 1000))
        _ = csystem_eventfd_drain(wake)
    }

    /// The channel a database's commits notify on: one per schema, so that
    /// databases side by side in one PostgreSQL database do not wake each other.
    static func channel(of schema: String) -> String {
        "\"tailor_feed_" + schema.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
