import TailorStore

/// A change someone wants: the one currency of the event path. HTTP handlers,
/// the chatbot and timers raise events; only the `EventRouter` applies them.
public enum Event: Sendable {
    case account(AccountEvent)
    case chat(ChatEvent)
    case message(MessageEvent)
    case order(OrderEvent)
}

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
}

public enum ChatEvent: Sendable {
    /// `user` opens the chat with the user named `contact` (created if new).
    case open(user: Int, contact: String)
}

public enum MessageEvent: Sendable {
    case send(chat: Int, sender: Int, text: String, clientID: String?)
    /// `reader` has read everything the other side sent in `chat`.
    case read(chat: Int, reader: Int)
}

public enum OrderEvent: Sendable {
    case place(user: Int, name: String, currency: String, items: [OrderItem])
    case changeStatus(user: Int, order: Int, to: OrderStatus)
    case delete(user: Int, order: Int)
}

/// What applying an event produced, for its source to answer with.
public enum EventOutcome: Sendable {
    case signedUp(User, session: Session?)
    case sessionStarted(Session)
    case sessionEnded(Session)
    /// A new password, and the sessions that ended with the old one.
    case passwordChanged(user: Int, endedSessions: [Session])
    case sessionSeen
    case chatOpened(Chat, contact: User, created: Bool)
    /// `duplicate` when the client id was seen before and nothing was stored.
    case messageSent(Message, in: Chat, duplicate: Bool)
    case messagesRead(chat: Chat, reader: Int, count: Int, at: Int)
    case orderChanged(Order)
    case orderDeleted(user: Int, order: Int)
}
