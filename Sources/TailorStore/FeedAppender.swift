/// Gives each commit that changed what users see its position in the change
/// feed, inside the writer's transaction. Used by the writer alone.
///
/// - PostgreSQL: an entry in the shared table, which other servers read
///   (`Store.appendChangeAndCommit`), pruned to the latest `window` entries.
/// - SQLite: one server owns the file and hands its entries on itself, so a
///   position is all it needs. Positions come from memory and are reserved in
///   the file a block at a time, in the commit that first uses the block: a
///   row per commit measurably slowed the writer. After a restart, or a
///   commit that failed, positions go on past the reserved block: they never
///   go back, and the unused rest of a block is skipped.
public final class FeedAppender {
    private let engine: DatabaseEngine
    private let window: Int
    /// SQLite: the next position to hand out, and the last one reserved.
    private var next: Int
    private var reserved: Int
    /// PostgreSQL: the position through which the next commit prunes the
    /// entries (the entry is the last statement of its own).
    private var pruneThrough: Int?
    /// PostgreSQL: this server, as the notifications of its commits name it.
    private let origin: String
    /// PostgreSQL with a bus: how a commit is announced besides its entry.
    private let announcement: FeedAnnouncement?

    /// Positions reserved at a time on SQLite.
    static let block = 1_000
    /// An entry's body up to this size goes in its notification, which the
    /// other servers apply without reading the feed: PostgreSQL takes
    /// payloads under 8,000 bytes, and the position and the origin come first.
    static let carriedBytes = 7_900
    /// Positions between two prunings of PostgreSQL's entries.
    static let pruneEvery = 1_000

    /// `store` is the writer's; `window` the entries PostgreSQL's feed keeps;
    /// `origin` names this server in the notifications of its commits.
    public init(store: Store, window: Int, origin: String = "", announcement: FeedAnnouncement? = nil) throws {
        engine = store.connection.engine
        self.window = max(window, 1)
        self.origin = origin
        self.announcement = announcement
        reserved = try store.lastPosition()
        next = reserved + 1
    }

    /// The position of a commit that changed `body`'s changes, which touch
    /// `users` (nil: anyone); both are written only where other servers read
    /// them. The last statement of the transaction: on PostgreSQL it commits.
    public func append(_ body: @autoclosure () -> [UInt8], touching users: @autoclosure () -> [Int]? = nil, in store: Store) throws -> Int {
        switch engine {
        case .sqlite:
            if next > reserved {
                try store.reservePositions(through: next + Self.block - 1)
                reserved = next + Self.block - 1
            }
            defer { next += 1 }
            return next
        case .postgres:
            if let horizon = pruneThrough { store.pruneChanges(through: horizon) }
            let bytes = body()
            let carried = bytes.count <= Self.carriedBytes ? String(decoding: bytes, as: UTF8.self) : nil
            let audience = users()
            let notifies = announcement?.notifiesPostgres() ?? true
            let position = try store.appendChangeAndCommit(bytes, users: audience, origin: origin, carried: carried, notify: notifies)
            // The same on the bus, with the users: what the followers keep while a position before it is missing stays as small.
            announcement?.publish(AnnouncedCommit(position: position, origin: origin, users: audience, carried: carried))
            // The latest entry always stays.
            pruneThrough = position % min(Self.pruneEvery, window) == 0 ? position - window : nil
            return position
        }
    }

    /// On SQLite, the position the writer's transaction under way takes when
    /// it commits: positions come from memory and every commit appends last.
    /// Nil on PostgreSQL, where it is drawn in the commit's last statement.
    public var upcomingPosition: Int? {
        engine == .sqlite ? next : nil
    }

    /// The transaction that took positions was undone, its reservation with
    /// it: the next commit reserves again. (A pruning undone waits for the
    /// next one, which prunes what it left.)
    public func rolledBack() {
        reserved = 0
    }
}
