import TailorStore

/// A change someone wants: the one currency of the event path. HTTP handlers,
/// the chatbot and timers raise events; only the `EventRouter` applies them.
public enum Event: Sendable {
    case account(AccountEvent)
    case chat(ChatEvent)
    case message(MessageEvent)
    case order(OrderEvent)
    case push(PushEvent)
}

/// What applying an event produced, for its source to answer with.
public enum EventOutcome: Sendable {
    case signedUp(User, session: Session?)
    /// A new session, and the oldest ones it ended past the quota.
    case sessionStarted(Session, endedSessions: [Session])
    case sessionEnded(Session)
    /// A new password, and the sessions that ended with the old one.
    case passwordChanged(user: Int, endedSessions: [Session])
    case sessionSeen
    /// `changed` unless a later time was recorded already.
    case lastSeen(user: Int, at: Int, changed: Bool)
    case chatOpened(Chat, contact: User, created: Bool)
    /// `changed` unless the block already stood (or did not).
    case chatBlocked(Chat, by: Int, blocked: Bool, changed: Bool)
    /// `changed` unless the setting was so already.
    case privacySet(user: Int, showsPresence: Bool, changed: Bool)
    /// `duplicate` when the client id was seen before and nothing was stored;
    /// `pushes` queued to the recipient's push subscriptions.
    case messageSent(Message, in: Chat, duplicate: Bool, pushes: Int)
    case messagesRead(chat: Chat, reader: Int, count: Int, at: Int)
    case orderChanged(Order)
    case orderDeleted(user: Int, order: Int)
    case pushSubscribed(PushSubscription)
    /// Push bookkeeping done: nothing to tell.
    case pushRecorded
    case pushesClaimed(PushClaim)
    /// A failing subscription was recorded; `removed` once it failed too long.
    case subscriptionFailing(removed: Bool)
}
