/// What one server tells the others about its users' presence. Nothing of it
/// is stored: a server that starts asks the others who is online (`hello`),
/// and one that stops being heard from (`heartbeat`) is taken to have gone
/// with its users.
package enum PresenceSignal: Equatable, Sendable {
    /// `user` opened a first event stream on the sending server.
    case online(user: Int)
    /// `user`'s last stream on the sending server closed; `lastSeen` when
    /// they are gone from every server it knows of, and it records when.
    case offline(user: Int, lastSeen: Int?)
    /// `user` is typing in `chat`, whose other member is `contact`.
    case typing(chat: Int, user: Int, contact: Int)
    /// The users online on the sending server: every one when `replacing`
    /// (the first part of a list), else more of them.
    case here(users: [Int], replacing: Bool)
    /// A server started, or lost the others' signals for a while: every
    /// server answers with who is online on it (`here`).
    case hello
    /// The sending server is alive.
    case heartbeat
    /// The sending server hears commits on the bus, and announces its own
    /// there: sent after each of its heartbeats. A server that never says
    /// so (of an earlier version, or started without the bus) needs
    /// PostgreSQL's notifications of every commit.
    case onBus
    /// The sending server routes commits on the bus by interest: it sends
    /// each whole only to the servers that serve its users and its stub to
    /// every one, and hears its own that way (`FeedBus`). Sent after `onBus`.
    /// While a server on the bus never says so (of an earlier version),
    /// every commit goes whole to every server.
    case routesByInterest
    /// The sending server has followed the feed through `position`, where
    /// an account was disabled: it no longer lets that account in.
    case applied(position: Int)
    /// From a tool, not a server (`tailor users disable`): every server
    /// answers with its heartbeat, so that the tool knows who runs. The tool
    /// is not taken for a server.
    case rollCall
}
