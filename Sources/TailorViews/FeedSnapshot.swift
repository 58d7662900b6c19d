import TailorStore

/// The store as the handler reads it while it follows the feed, and the
/// feed's position that store shows: a chat read from it already holds every
/// entry up to there.
///
/// Most entries need nothing read, and a snapshot for them would cost a
/// round trip to begin and one to end on PostgreSQL: the snapshot begins with
/// the first read, which also says the position it shows.
package final class FeedSnapshot {
    private var begun: (store: Store, position: Int)?
    private let begin: () throws -> (store: Store, position: Int)

    /// A store that shows the feed up to `position`.
    package convenience init(_ store: Store, showing position: Int) {
        self.init(begunBy: { (store, position) })
    }

    /// A snapshot that `begin` begins, with a read, and returns with the
    /// position it shows; called once, before the first read (again after
    /// it failed). Every entry handed to the handler with it must have been
    /// committed before it was made.
    package init(begunBy begin: @escaping () throws -> (store: Store, position: Int)) {
        self.begin = begin
    }

    /// A store in a read transaction that begins with its first statement,
    /// in which the position is read: right on PostgreSQL, where the latest
    /// entry of the feed is the latest commit the snapshot shows.
    package convenience init(takenWhenRead store: Store) {
        self.init(begunBy: { (store, try store.lastPosition()) })
    }

    /// The feed's latest position the store shows.
    package func position() throws -> Int {
        try begunSnapshot().position
    }

    /// The store, its snapshot begun: every read from it shows `position()`.
    package func reading() throws -> Store {
        try begunSnapshot().store
    }

    private func begunSnapshot() throws -> (store: Store, position: Int) {
        if let begun { return begun }
        let snapshot = try begin()
        begun = snapshot
        return snapshot
    }
}
