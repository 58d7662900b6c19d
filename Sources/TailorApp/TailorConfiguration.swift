import TailorFeed
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews

/// Everything `tailor serve` is told: the HTTP server's address and limits, and
/// what the application serves.
public struct TailorConfiguration: Sendable {
    public var server = HTTPServerConfiguration()
    /// The folder served at `/`; nil serves no files.
    public var publicFolder: String? = "Public"
    /// A SQLite file (created with its folder; `:memory:` for a throwaway one)
    /// or a PostgreSQL database.
    public var database = DatabaseLocation.sqlite(path: "data/tailor.sqlite")
    public var synchronous = Database.Synchronous.normal
    /// IANA name of the time zone of date texts.
    public var timeZone = "UTC"
    /// Seconds before the chatbot reads and answers.
    public var botDelay = 1.0
    /// Seconds between heartbeat comments on event streams.
    public var heartbeat = 15.0
    /// Seconds a user stays online after their last event stream closed: a
    /// page that reloads is back before it ends.
    public var offlineGrace = 2.0
    /// Seconds without a presence signal after which another server is taken
    /// to be gone, with its users (PostgreSQL only); it sends its heartbeat
    /// three times as often.
    public var presenceLifetime = 15.0

    var presenceSettings: PresenceTracker.Settings {
        var settings = PresenceTracker.Settings()
        settings.offlineGrace = UInt64(offlineGrace * 1e9)
        settings.serverLifetime = UInt64(presenceLifetime * 1e9)
        return settings
    }
    /// Add the demo users, chats and orders on first start.
    public var demo = false
    /// Bytes the server may hold for caches and for what clients have not taken
    /// yet, shared out below. Past the streams' shares the slowest streams are ended.
    public var memoryBudget = 512 * 1024 * 1024
    /// Bytes of encoded view models kept in memory; nil for an eighth of `memoryBudget`.
    public var viewCacheBytes: Int?

    /// What the view cache may hold.
    var viewCacheBudget: Int { viewCacheBytes ?? memoryBudget / 8 }
    /// Chats kept in memory for their users' lists, badges and screens: a
    /// quarter of the memory budget (a user's list read back from the database
    /// costs far more than the memory), whatever the budget.
    var keptChatBudget: Int { memoryBudget / 4 / ChatDirectory.bytesPerChat }
    /// What all event streams together may hold for unsent events: a quarter.
    var streamBudget: Int { memoryBudget / 4 }
    /// What one user's event streams may hold for unsent events: a thirty-second.
    var streamBudgetPerUser: Int { memoryBudget / 32 }
    /// Each user's writes: generous for people and for scripts that import
    /// history; the load scenario at its aim sends 2–3 a second per user.
    public var writeLimit = RateLimit(perSecond: 20, burst: 200)
    /// What one user may hold: orders, browser sessions.
    public var quotas = Quotas()
    /// Entries the change feed keeps: a stream that resumes from an older
    /// position gets every topic's view model anew.
    public var feedWindow = 100_000
    /// How long the writer rests after a batch, so that the events arriving
    /// meanwhile share the next commit (see `GroupCommit`); zero never rests.
    public var commitDelay: Duration = .microseconds(1300)
    /// How long the writer waits for a lock another server's transaction holds
    /// (PostgreSQL): past it that write is answered 503 and the rest of its
    /// batch commits.
    public var lockWait: Duration = .seconds(1)
    /// How long PostgreSQL lets a transaction of this server's wait for it (a
    /// server frozen or cut off inside a commit) before it ends the session
    /// and undoes the transaction, releasing its locks. The writer's windows
    /// for chats held elsewhere (`ChatsHeldElsewhere`) and the patience for a
    /// gap in the feed (`FeedGaps.patience`) follow from it.
    public var idleTransactionTimeout: Duration = .seconds(5)

    /// How long a gap in the change feed is waited for, at start or while following.
    var feedPatience: Duration { FeedGaps.patience(idleTransactionTimeout: idleTransactionTimeout) }

    /// What each of this server's PostgreSQL connections is told as it opens.
    var postgresSettings: PostgresSessionSettings {
        var settings = PostgresSessionSettings()
        settings.idleInTransaction = idleTransactionTimeout
        return settings
    }

    /// How long a request that carries a feed position (a write answered by
    /// another server) waits for this server to apply it; then 503.
    public var positionWait: Duration = .seconds(2)
    /// Sign-ups and sign-ins per client address.
    public var accountLimit = RateLimit(perSecond: 1, burst: 100)
    /// Milliseconds a browser session may go unused before it ends: 30 days.
    public var sessionIdleTime = 30 * 24 * 3600 * 1000
    /// Tries of one name's password (sign-ins, and the current password when
    /// it is changed) from one client address: ten at once, then one every 30
    /// seconds.
    public var passwordAttemptLimit = RateLimit(perSecond: 1.0 / 30, burst: 10)
    /// Tries of one name's password from all addresses together: a hundred at
    /// once, then one a second. Much larger than one address's, so that a
    /// guesser slows itself, not the account's owner.
    public var passwordNameLimit = RateLimit(perSecond: 1, burst: 100)
    /// Password hashes waiting for the `passwords` thread, in all and per address.
    public var passwordQueue = PasswordQueue.Limits()
    /// Where each answered request is written as a JSON line: a file, `-` for
    /// standard output, nil for nowhere.
    public var accessLog: String?
    /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    public var trustedProxies: [AddressRange] = []
    /// Origins whose pages may call the API from a browser (CORS); none by default.
    public var allowedOrigins: Set<String> = []
    /// Web Push: which push services, the key, the delays.
    public var push = PushSettings()
    /// The NATS servers of the bus (`nats://host:port`), any of which will
    /// do; none: commits are announced by PostgreSQL's notifications alone.
    public var bus: [String] = []
    /// How long a server goes on serving a user after their last stream here
    /// closed or their last request came (`ServedUsers`): a reconnect within
    /// it finds everything kept; past it, on the bus, what was kept of them
    /// is let go.
    public var servedGrace: Duration = ServedUsers.defaultGrace

    public init() {}
}

extension TailorConfiguration {
    /// The PostgreSQL database other servers may write too, if it is one: its
    /// commits then come through the feed's follower, this server's own as
    /// well, and its users' presence through notifications.
    var sharedDatabaseURL: String? {
        if case .postgres(let url) = database { url } else { nil }
    }
}
