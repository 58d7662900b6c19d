/// A signed-in browser: its own token, separate from the account's, so that
/// signing out ends it alone.
public struct Session: Sendable, Equatable {
    public let id: Int
    public let userID: Int
    public let tokenHash: [UInt8]
    public let createdAt: Int
    public let lastSeenAt: Int
    /// What the browser called itself when it signed in, cut to `maxUserAgentBytes`.
    public let userAgent: String

    public static let maxUserAgentBytes = 256

    public init(id: Int, userID: Int, tokenHash: [UInt8], createdAt: Int, lastSeenAt: Int, userAgent: String) {
        self.id = id
        self.userID = userID
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.userAgent = userAgent
    }
}

/// What a new session is made of, before it is stored.
public struct NewSession: Sendable {
    public let tokenHash: [UInt8]
    public let userAgent: String

    public init(tokenHash: [UInt8], userAgent: String) {
        self.tokenHash = tokenHash
        self.userAgent = userAgent.prefix(bytes: Session.maxUserAgentBytes)
    }
}
