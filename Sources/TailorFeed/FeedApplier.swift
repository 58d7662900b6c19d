/// Who applies the feed to this server, the writer's own entries included.
package enum FeedApplier: Sendable {
    /// This server is the database's only writer (SQLite): its commits are
    /// the whole feed, applied on a thread of their own.
    case ownThread(CommitFollower)
    /// Other servers write the database too (PostgreSQL): the follower reads
    /// their entries and applies them in order with this server's.
    case follower(FeedFollower)
}
