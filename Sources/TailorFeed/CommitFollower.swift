import Logging
import TailorDomain
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews

/// Applies the writer's commits on a thread of its own when this server is
/// the database's only writer (SQLite), as the follower does on PostgreSQL:
/// the writer goes on committing the next batch while the handler follows
/// this one. Entries are applied in commit order, each with a snapshot of a
/// reader connection that the `CommitGate` places exactly in the feed, and
/// a batch's sources are answered only once its entry is applied, so that
/// they read their writes.
package final class CommitFollower: Sendable {
    private let thread = SerialThread(name: "feed")
    private let database: Database
    private let handler: any FeedHandler
    private let progress: FeedProgress
    package let gate: CommitGate
    private let failures: ThrottledLog

    package init(database: Database, handler: any FeedHandler, progress: FeedProgress, logger: Logger) {
        self.database = database
        self.handler = handler
        self.progress = progress
        gate = CommitGate(committed: progress.applied)
        failures = ThrottledLog(logger: logger, level: .error)
    }

    /// Applies `entry`, just committed, after the entries before it, then
    /// calls `answer`.
    package func apply(_ entry: FeedEntry, then answer: @escaping @Sendable () -> Void) {
        thread.async { [self] in
            do {
                try database.read { store in handler.committed(entry, snapshot: snapshot(of: store)) }
            } catch {
                // No reader could be had (the handler did not run): the entry is
                // applied all the same, the kept chats reading nothing.
                failures.log("no reader for the kept chats while applying the feed's entry \(entry.position): \(error)")
                handler.committed(entry, snapshot: FeedSnapshot(begunBy: { throw error }))
            }
            progress.advance(to: entry.position)
            answer()
        }
    }

    /// Waits until every entry handed over is applied.
    package func finish() {
        thread.sync {}
    }

    /// A reader's store, in a read transaction not begun yet: its first read
    /// runs under the gate.
    private func snapshot(of store: Store) -> FeedSnapshot {
        FeedSnapshot(begunBy: { [gate] in (store, FeedPlace(through: try gate.beginSnapshot { _ = try store.lastPosition() })) })
    }
}
