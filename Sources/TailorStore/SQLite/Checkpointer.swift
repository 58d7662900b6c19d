import CSQLite
import Synchronization
import TailorLoop

/// Copies the write-ahead log back into the database file on a connection and
/// thread of its own, so that the writer never waits for it.
///
/// SQLite's own checkpoints run inside the commit that crosses the log's size
/// limit, and one syncs the log and the file to disk: under a steady load of
/// writes they would be most of the slowest answers. Here a commit only asks for a
/// checkpoint; this thread copies what the log holds while the writer goes on.
/// A checkpoint that ends with every frame copied lets the writer start the log
/// over at its next commit, so the log stays bounded.
///
/// Starting the log over costs the writer a sync: SQLite syncs the log's new
/// header before the frames that follow it, and on a file system that is a
/// flush of the disk's cache, which waits for everything the disk has queued.
/// A log started over after every 1,000 frames did that seven times a second at
/// 2,000 messages a second, nearly all the time the writer spent waiting for
/// the disk, and on a slow moment of a shared disk each one held every
/// commit for up to hundreds of milliseconds. Asked for at 8,000 frames
/// (33 MB), a checkpoint comes about once a second, and copies a hot page
/// once where eight smaller ones copied it eight times.
///
/// Writes with no pause at all never let a checkpoint catch up, and a reader
/// holding an old snapshot keeps it from copying past that snapshot. Then the
/// writer checkpoints itself once the log holds `writerFrames`, as SQLite
/// would have, only less often: the log stays bounded either way.
final class Checkpointer: Sendable {
    /// Frames (pages) in the log at which a commit asks for a checkpoint.
    static let askFrames = 8000
    /// Frames at which the writer stops waiting for this thread and copies.
    static let writerFrames = 32000
    /// Bytes of one frame in the log: a page of SQLite's default 4 KiB and its 24-byte header.
    static let frameBytes = 4096 + 24

    private let thread = SerialThread(name: "checkpoint")
    private let connection: ThreadConfined<SQLiteConnection>
    private let scheduled = Atomic<Bool>(false)
    private let counts = Mutex(Counts())
    /// Frames in the log after the writer's last commit.
    private let frames = Atomic<Int>(0)

    struct Counts: Sendable, Equatable {
        var onOwnThread = 0
        var byWriter = 0
    }

    init(path: String, synchronous: Database.Synchronous) throws {
        let connection = try SQLiteConnection(path: path)
        // A checkpoint syncs as its own connection says.
        try connection.execute("PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
        self.connection = ThreadConfined(connection)
    }

    /// Takes over the checkpoints after `writer`'s commits.
    func watch(_ writer: SQLiteConnection) {
        writer.afterEachCommit { [self] handle, frames in
            self.frames.store(Int(frames), ordering: .relaxed)
            if frames >= Self.writerFrames {
                sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                counts.withLock { $0.byWriter += 1 }
            } else if frames >= Self.askFrames {
                ask()
            }
        }
    }

    /// Checkpoints run so far, on this thread and by the writer.
    var done: Counts { counts.withLock { $0 } }

    /// Frames (pages) in the write-ahead log after the last commit.
    var logFrames: Int { frames.load(ordering: .relaxed) }

    /// Waits for a checkpoint under way, if any.
    func finish() {
        thread.sync {}
    }

    private func ask() {
        guard scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        thread.async { [self] in
            scheduled.store(false, ordering: .releasing)
            // Passive: copies what no reader still needs, never waits for one.
            sqlite3_wal_checkpoint_v2(connection.value.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            counts.withLock { $0.onOwnThread += 1 }
        }
    }
}
