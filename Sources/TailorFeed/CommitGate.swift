import Synchronization
import TailorDomain
import TailorStore

/// The position of the writer's latest commit on SQLite, exact for a
/// snapshot begun under its lock. SQLite keeps no record of it (positions are
/// reserved a block at a time, `FeedAppender`), and a reader's snapshot shows
/// whatever was committed when its first read ran. So the writer commits, and
/// records the position it took, under the lock, and a snapshot's first read
/// runs under it too: no commit can land between that read and the position
/// it is said to show.
///
/// The lock is taken by the writer for each batch, and by a reader only when
/// the kept chats must read a user (rarely, once they are warm).
package final class CommitGate: Sendable {
    /// Held by the writer's thread across a commit and by a reader's first read (see above).
    private let latest: Mutex<Int>

    /// `position`: the feed's position the database shows now.
    package init(committed position: Int) {
        latest = Mutex(position)
    }

    /// Runs the writer's `transaction`, which returns the entry it committed
    /// in the feed, if any; no snapshot begins meanwhile.
    package func commit(_ transaction: () throws -> FeedEntry?) throws -> FeedEntry? {
        try latest.withLock { latest in
            let entry = try transaction()
            if let entry { latest = entry.position }
            return entry
        }
    }

    /// Begins a snapshot with `firstRead`; the position it shows.
    package func beginSnapshot(with firstRead: () throws -> Void) throws -> Int {
        try latest.withLock { latest in
            try firstRead()
            return latest
        }
    }
}
