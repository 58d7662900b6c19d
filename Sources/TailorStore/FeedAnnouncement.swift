/// How the writer announces a commit to the other servers when they share a
/// bus: on the bus, after the commit, and with PostgreSQL's notification too
/// while a server that does not listen to the bus may follow the feed (one
/// of an earlier version, or one started without the bus). Where on the bus
/// it goes is the bus's to say (`FeedBus`).
public struct FeedAnnouncement: Sendable {
    public let notifiesPostgres: @Sendable () -> Bool
    public let publish: @Sendable (AnnouncedCommit) -> Void

    public init(notifiesPostgres: @escaping @Sendable () -> Bool, publish: @escaping @Sendable (AnnouncedCommit) -> Void) {
        self.notifiesPostgres = notifiesPostgres
        self.publish = publish
    }
}

/// A commit as the writer announces it: its position, the server that wrote
/// it, the users it touches (nil: anyone) and its entry's body when small
/// enough to carry.
public struct AnnouncedCommit: Sendable, Equatable {
    public let position: Int
    public let origin: String
    public let users: [Int]?
    public let carried: String?

    public init(position: Int, origin: String, users: [Int]?, carried: String?) {
        self.position = position
        self.origin = origin
        self.users = users
        self.carried = carried
    }

    /// What a server that was not sent the commit itself needs to know of
    /// it: its position and whom it touches.
    public var stub: CommitStub? {
        users.map { CommitStub(position: position, users: $0) }
    }
}

/// A commit without its body: enough for a server that serves none of its
/// users to pass it over, and for one that serves some to know it must read it.
public struct CommitStub: Sendable, Equatable {
    public let position: Int
    public let users: [Int]

    public init(position: Int, users: [Int]) {
        self.position = position
        self.users = users
    }
}
