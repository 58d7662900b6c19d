import TailorStore

/// The store as the handler reads it while it follows the feed, and which
/// of the feed's entries that store shows (`FeedPlace`): a chat read from it
/// already holds them.
///
/// Most entries need nothing read, and a snapshot for them would cost a
/// round trip to begin and one to end on PostgreSQL: the snapshot begins with
/// the first read, which also says the place it shows.
package final class FeedSnapshot {
    private var begun: (store: Store, place: FeedPlace)?
    private let begin: () throws -> (store: Store, place: FeedPlace)

    /// A store that shows the feed up to `position`, and nothing past it.
    package convenience init(_ store: Store, showing position: Int) {
        self.init(begunBy: { (store, FeedPlace(through: position)) })
    }

    /// A snapshot that `begin` begins, with a read, and returns with the
    /// place it shows; called once, before the first read (again after it
    /// failed). Every entry handed to the handler with it must have been
    /// committed before it was made.
    package init(begunBy begin: @escaping () throws -> (store: Store, place: FeedPlace)) {
        self.begin = begin
    }

    /// A store in a read transaction that begins with its first statement,
    /// in which the entries past `applied` it shows are read (PostgreSQL's
    /// feed, whose follower has applied it through `applied`).
    package convenience init(takenWhenRead store: Store, pastApplied applied: Int) {
        self.init(begunBy: { (store, try store.feedPlace(after: applied)) })
    }

    /// Which of the feed's entries the store shows.
    package func place() throws -> FeedPlace {
        try begunSnapshot().place
    }

    /// The store, its snapshot begun: every read from it shows `place()`.
    package func reading() throws -> Store {
        try begunSnapshot().store
    }

    private func begunSnapshot() throws -> (store: Store, place: FeedPlace) {
        if let begun { return begun }
        let snapshot = try begin()
        begun = snapshot
        return snapshot
    }
}
