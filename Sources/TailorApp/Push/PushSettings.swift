import TailorPush

/// How this server sends Web Push notifications.
public struct PushSettings: Sendable {
    /// Hosts of push services that subscriptions may name (a leading dot: its
    /// subdomains); the browsers' own services by default.
    public var hosts = PushEndpoint.browserServices
    /// Certificate authorities to trust for push services instead of the
    /// system's: a test's own service.
    public var caFile: String?
    /// A PEM file with the VAPID key; nil keeps one made at first start in the database.
    public var keyFile: String?
    /// Who runs this server, for push services that need to reach them
    /// (`mailto:` or `https:`), in every push's VAPID token.
    public var subject = "mailto:admin@localhost"
    /// Milliseconds a push waits after its message before it is sent: a
    /// server with a stream showing the chat cancels it meanwhile.
    public var delay = 500
    /// Subscriptions one account may hold (409 past it).
    public var subscriptionsPerUser = 10
    /// Seconds a push service has to answer one push.
    public var timeout = 10.0
    /// Times a push is tried before it is given up.
    public var attempts = 6
    /// Seconds a push service keeps an undelivered push (`TTL`).
    public var timeToLive = 86_400
    /// Pushes waiting per subscription at most; past it the oldest are dropped.
    public var pendingPerSubscription = 100
    /// Seconds a subscription's pushes may keep failing (no answer, 429, 5xx)
    /// before it is removed; a delivered push starts the count again.
    public var dropFailingAfter = 3 * 86_400.0
    /// Pushes in flight from one server at most, and to one push service's host.
    public var inFlight = 64
    public var inFlightPerHost = 16

    public init() {}
}
