import TailorHTTP
import TailorLoop
import TailorViews

/// The work handed to a lane and not yet taken by a pass: changes that wait
/// while a pass runs come to one pass together. Rebuilds (at midnight, after
/// a failed build) wait here too, so that a stream gets every version of a
/// view model in the order the lane built them, never an older one after a
/// newer.
struct LaneInbox {
    var changes = Set<TopicChange>()
    /// Topics to build again with no change of their own.
    var rebuilds = Set<TopicChange>()
    var notifications: [EventStreams.Notification] = []
    /// Every topic the lane's streams follow changed (the feed started over).
    var everyFollowedTopic = false
    /// Every topic the lane's streams follow is to be built again (midnight).
    var rebuildsEveryFollowedTopic = false
    /// The bytes followed topics had before they are built again with no
    /// change of their own: one built to the same bytes is not sent.
    var rebuiltUnlessSameAs: [ViewKey: SharedBytes] = [:]
    /// The feed position of the latest change waiting.
    var position: Int64 = 0
    /// Cached versions to free after the pass, off the thread that applies the feed.
    var toFree: [CachedRepresentation] = []
    /// A pass is going or due, and takes what is added.
    var passScheduled = false
    /// The lane's users that some stream follows, with their streams' count.
    /// Changes and notifications for anyone else need no pass of their own
    /// (on a database several servers write, most of other servers' users
    /// have no stream here): they wait, quiet, for the next pass that comes
    /// anyway, or for a stream of one of theirs to open (`Lane.follow`).
    var followers: [Int: Int] = [:]
    /// Changes and notifications waiting that no stream followed when they came.
    var quiet = 0
    /// Quiet work past this many waits no longer: a pass takes it.
    static let quietAtMost = 1_000

    /// Takes what waits, leaving the followers and `passScheduled`.
    mutating func takeWork(passScheduled: Bool) -> LaneInbox {
        var taken = LaneInbox(passScheduled: passScheduled)
        swap(&taken.followers, &followers)
        swap(&taken, &self)
        return taken
    }

    var hasWork: Bool {
        !changes.isEmpty || !notifications.isEmpty || !rebuilds.isEmpty || everyFollowedTopic || rebuildsEveryFollowedTopic
    }

    /// Adds changes at `position`, never below what was added before, and
    /// takes the versions `handed` to free after the pass, leaving none with
    /// the caller. True when they need a pass: some stream follows one of
    /// their users, there are versions to free, or quiet work piled up.
    mutating func add(_ changes: Set<TopicChange>, notifications: [EventStreams.Notification], position: Int64,
                      freeing handed: inout [CachedRepresentation]) -> Bool {
        let followed = changes.contains { followers[$0.user] != nil } || notifications.contains { followers[$0.recipient] != nil }
        if !followed { quiet += changes.count + notifications.count }
        // Most often nothing waits: the set is taken as it is, not copied into another.
        if self.changes.isEmpty { self.changes = changes } else { self.changes.formUnion(changes) }
        self.notifications += notifications
        if toFree.isEmpty {
            swap(&toFree, &handed)
        } else {
            toFree += handed
            handed.removeAll()
        }
        self.position = position
        return followed || !toFree.isEmpty || quiet > Self.quietAtMost
    }
}
