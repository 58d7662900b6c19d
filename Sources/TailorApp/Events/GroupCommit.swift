/// When the writer holds a batch back so that more events share its commit.
///
/// A commit costs about the same for one message as for several: the pages
/// they share (the table's last leaf, the id counter, the index leaves of a
/// busy chat) are written to the log once, the feed thread and the lanes are
/// woken once, a checkpoint is asked for once. At a steady rate an event
/// nearly always finds the writer resting, and would be committed alone. So
/// after each batch the writer rests for `delay`, and the events that arrive
/// meanwhile make the next batch; when `enoughEvents` wait already, it takes
/// them at once. An event that finds the writer idle (it rested and nothing
/// came) is committed at once: a quiet server adds no wait. No event waits
/// longer than the rest for others.
///
/// The rest is the writer's one sleep per commit under a steady load. Waiting
/// instead for the first event after a batch and then for others to join it
/// puts the writer to sleep twice per commit, and on a busy machine each
/// sleep costs about as much CPU as a message's insert.
///
/// Several servers on one database rest longer, by their number (up to
/// `mostServersCounted`): every server follows every commit (its feed thread
/// applies it, its listening connection is woken for it), so a commit costs
/// about as many times what it costs one server, while each server's share of
/// the writes arrives that many times more slowly. Resting that much longer
/// gives each server's batches what one server's hold at the whole rate.
struct GroupCommit {
    /// Nanoseconds the writer rests after a batch, alone on its database; 0 never rests.
    let delay: UInt64
    /// Events that make a batch worth committing without waiting for more.
    static let enoughEvents = 16
    /// Servers counted at most in the rest: with more, no write waits more than this many delays.
    static let mostServersCounted = 4

    /// Nanoseconds to rest after a batch, with `waiting` events queued already,
    /// when `servers` follow the database (this one included).
    func rest(waiting: Int, servers: Int = 1) -> UInt64 {
        waiting < Self.enoughEvents ? delay * UInt64(min(max(servers, 1), Self.mostServersCounted)) : 0
    }
}
