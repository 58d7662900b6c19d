import TailorStore

/// What an account asks for: `Event.account`.
public enum AccountEvent: Sendable {
    /// A new user, with an account token whose hash is kept, and the session of
    /// the browser that signed up, if one did.
    /// `passwordHash` when the user chose a password.
    case signUp(name: String, tokenHash: [UInt8], session: NewSession?, passwordHash: String?)
    /// A browser signs in to `user`'s account.
    case startSession(user: Int, NewSession)
    /// `user` ends one of their sessions (signs a browser out).
    case endSession(user: Int, session: Int)
    /// `user` sets a new password; every session but `keeping` ends with it.
    case changePassword(user: Int, passwordHash: String, keeping: Int?)
    /// A session was used: when it was last seen, kept roughly.
    case sessionSeen(session: Int)
    /// `user`'s last event stream on every server closed at `time`.
    case lastSeen(user: Int, at: Int)
    /// `user` lets their contacts see their presence, or stops.
    case setPrivacy(user: Int, showsPresence: Bool)
}
