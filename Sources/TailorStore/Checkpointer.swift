import Dispatch
import Synchronization

/// Copies the write-ahead log back into the database file on a thread of its
/// own. Left to itself, SQLite runs that checkpoint inside the commit that
/// makes the log long enough, and the events of that commit, with every event
/// queued behind it, wait for the copy.
///
/// The writer's commits report the log's length; past `logPagesThreshold` a
/// passive checkpoint is queued, which copies what no reader still needs and
/// never blocks the writer or the readers.
final class Checkpointer: @unchecked Sendable {
    /// Log pages after which a checkpoint is queued (SQLite's own default).
    static let logPagesThreshold = 1000

    /// Used only on `queue`.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "tailor.checkpoint")
    private let queued = Atomic<Bool>(false)
    private let runs = Atomic<Int>(0)

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Takes over checkpoints from `writer`.
    func watch(_ writer: SQLiteConnection) {
        writer.onCommitToLog { [self] logPages in
            guard logPages >= Self.logPagesThreshold, !queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
            queue.async { [self] in
                queued.store(false, ordering: .releasing)
                try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
                runs.add(1, ordering: .relaxed)
            }
        }
    }

    /// Checkpoints run so far.
    var runCount: Int { runs.load(ordering: .relaxed) }

    /// Waits for a queued checkpoint to end.
    func finish() {
        queue.sync {}
    }
}
