/// A browser's Web Push subscription: where its push service takes pushes
/// for it, and the keys a push's payload is encrypted with.
public struct PushSubscription: Sendable, Equatable {
    public let id: Int
    public let userID: Int
    /// The browser session it was made in; it ends with that session.
    public let sessionID: Int?
    public let endpoint: String
    /// The browser's P-256 public key, an uncompressed point (65 bytes).
    public let p256dh: [UInt8]
    /// The browser's authentication secret (16 bytes).
    public let auth: [UInt8]

    public init(id: Int, userID: Int, sessionID: Int?, endpoint: String, p256dh: [UInt8], auth: [UInt8]) {
        self.id = id
        self.userID = userID
        self.sessionID = sessionID
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// A push waiting in the outbox, claimed for delivery: the subscription it
/// goes to and the message it tells of.
public struct PushJob: Sendable, Equatable {
    /// Its row in the outbox.
    public let id: Int
    public let subscription: PushSubscription
    public let message: Message
    /// The name of the message's sender, shown as the notification's contact.
    public let senderName: String
    /// Deliveries tried before this one.
    public let attempts: Int

    public init(id: Int, subscription: PushSubscription, message: Message, senderName: String, attempts: Int) {
        self.id = id
        self.subscription = subscription
        self.message = message
        self.senderName = senderName
        self.attempts = attempts
    }
}

/// What one claim of the outbox took, and what it left out for good.
public struct PushClaim: Sendable, Equatable {
    public let jobs: [PushJob]
    /// Pending pushes replaced by a newer one of the same chat to the same subscription.
    public let replaced: Int
    /// Pending pushes dropped, the oldest first, past the bound per subscription.
    public let dropped: Int

    public init(jobs: [PushJob], replaced: Int, dropped: Int) {
        self.jobs = jobs
        self.replaced = replaced
        self.dropped = dropped
    }
}
