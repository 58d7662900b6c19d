import TailorDomain
import TailorViews

/// What applying the feed does on this server (the application's handler:
/// the kept chats, the view cache, sign-ins, the streams, the news of the bot
/// and of pushes). The followers tell it every entry in position order, on
/// the feed's thread, this server's own commits included.
package protocol FeedHandler: Sendable {
    /// The entry at its position is applied; `snapshot` reads the database
    /// as of that position, for what the entry's changes need.
    func committed(_ entry: FeedEntry, snapshot: FeedSnapshot)

    /// The entry at `position` touches only `users`, whom this server does
    /// not serve (`ServedUsers`), and is not applied: what is kept of them
    /// is let go.
    func passed(_ position: Int, users: [Int])

    /// `users` are no longer served here (`ServedUsers.takeEnded`): what is
    /// kept of them is let go, so that a server keeps only the state of the
    /// users it serves. `position` is the last applied.
    func noLongerServed(_ users: [Int], at position: Int)

    /// The feed went on without this server past what it keeps (a follower
    /// far behind): everything kept is as of `position` from now on.
    func startOver(at position: Int)
}
