import TailorStore

/// The store as the handler reads it while it follows the feed, and the
/// feed's position that store shows: a chat read from it already holds every
/// entry up to there.
///
/// On the writer (SQLite) the store shows exactly the entry just committed.
/// On the follower (PostgreSQL) most entries need nothing read, and a
/// snapshot for them would cost a round trip to begin and one to end: the
/// snapshot begins with the first read, and its position is read in it then.
final class FeedSnapshot {
    let store: Store
    private var shown: Int?

    /// A store that shows the feed up to `position`.
    init(_ store: Store, showing position: Int) {
        self.store = store
        shown = position
    }

    /// A store in a read transaction that begins with its first statement;
    /// which position it shows is read when first asked. Every entry handed
    /// to the handler with it must have been committed before it was made.
    init(takenWhenRead store: Store) {
        self.store = store
    }

    /// The feed's latest position the store shows.
    func position() throws -> Int {
        if let shown { return shown }
        let position = try store.lastPosition()
        shown = position
        return position
    }
}
