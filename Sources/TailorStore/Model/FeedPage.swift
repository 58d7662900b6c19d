/// A read of PostgreSQL's change feed in one snapshot.
public struct FeedPage: Sendable {
    /// Entries past the position read from, in order, each with the users
    /// it touches (nil: anyone).
    public var entries: [(position: Int, body: [UInt8], users: [Int]?)] = []
    /// The latest position in the snapshot, which may be past the last entry read.
    public var latest = 0
    /// Entries at or below this position were pruned.
    public var horizon = 0
    /// Whether every writer's transaction the read was asked to settle had
    /// ended when its snapshot was taken (`FeedGaps`).
    public var writersEnded = true
}
