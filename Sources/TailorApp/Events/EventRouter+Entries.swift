import TailorDomain
import TailorStore

/// One entry point per event, each with its own kind of answer: the HTTP
/// routes, the chatbot and the demo ask for a change and get what it made,
/// without matching `EventOutcome` themselves. Which outcome an event makes is
/// `EventApplier`'s rule, checked here once.
extension EventRouter {
    /// A new user, and the session of the browser that signed up.
    public func signUp(name: String, tokenHash: [UInt8], session: NewSession, passwordHash: String? = nil) async throws -> (user: User, session: Session) {
        try await route(.account(.signUp(name: name, tokenHash: tokenHash, session: session, passwordHash: passwordHash))) {
            guard case .signedUp(let user, let started?) = $0 else { return nil }
            return (user, started)
        }
    }

    /// A new user with an account token only, no browser's session.
    public func signUp(name: String, tokenHash: [UInt8]) async throws -> User {
        try await route(.account(.signUp(name: name, tokenHash: tokenHash, session: nil, passwordHash: nil))) {
            guard case .signedUp(let user, nil) = $0 else { return nil }
            return user
        }
    }

    public func startSession(user: Int, _ session: NewSession) async throws -> Session {
        try await route(.account(.startSession(user: user, session))) {
            guard case .sessionStarted(let started, _) = $0 else { return nil }
            return started
        }
    }

    /// The session that ended.
    public func endSession(user: Int, session: Int) async throws -> Session {
        try await route(.account(.endSession(user: user, session: session))) {
            guard case .sessionEnded(let ended) = $0 else { return nil }
            return ended
        }
    }

    /// Sets `user`'s password; the sessions it ended, all but `keeping`.
    public func changePassword(user: Int, passwordHash: String, keeping session: Int?) async throws -> [Session] {
        try await route(.account(.changePassword(user: user, passwordHash: passwordHash, keeping: session))) {
            guard case .passwordChanged(_, let ended) = $0 else { return nil }
            return ended
        }
    }

    public func noteSessionSeen(_ session: Int) async throws {
        try await route(.account(.sessionSeen(session: session))) { outcome -> Void? in
            guard case .sessionSeen = outcome else { return nil }
            return ()
        }
    }

    /// Records that `user`'s last stream closed at `time`; whether that was
    /// news (no later time was recorded).
    public func noteLastSeen(user: Int, at time: Int) async throws -> Bool {
        try await route(.account(.lastSeen(user: user, at: time))) {
            guard case .lastSeen(_, _, let changed) = $0 else { return nil }
            return changed
        }
    }

    /// The chat of `user` with the user named `contact`, opened now (`created`) or before.
    public func openChat(user: Int, contact: String) async throws -> (chat: Chat, created: Bool) {
        try await route(.chat(.open(user: user, contact: contact))) {
            guard case .chatOpened(let chat, _, let created) = $0 else { return nil }
            return (chat, created)
        }
    }

    /// The message stored; `duplicate` when its client id was seen before and
    /// the message is the one stored then.
    public func send(chat: Int, sender: Int, text: String, clientID: String?) async throws -> (message: Message, duplicate: Bool) {
        try await route(.message(.send(chat: chat, sender: sender, text: text, clientID: clientID))) {
            guard case .messageSent(let message, _, let duplicate, _) = $0 else { return nil }
            return (message, duplicate)
        }
    }

    /// `user` blocks the other member of `chat`, or lifts the block.
    public func block(chat: Int, by user: Int, _ blocked: Bool) async throws {
        try await route(.chat(.block(user: user, chat: chat, blocked: blocked))) { outcome -> Void? in
            guard case .chatBlocked = outcome else { return nil }
            return ()
        }
    }

    /// `user` lets contacts see their presence, or stops.
    public func setPrivacy(of user: Int, showsPresence: Bool) async throws {
        try await route(.account(.setPrivacy(user: user, showsPresence: showsPresence))) { outcome -> Void? in
            guard case .privacySet = outcome else { return nil }
            return ()
        }
    }

    /// How many messages `reader` read now.
    @discardableResult
    public func markRead(chat: Int, reader: Int) async throws -> Int {
        try await route(.message(.read(chat: chat, reader: reader))) {
            guard case .messagesRead(_, _, let count, _) = $0 else { return nil }
            return count
        }
    }

    public func placeOrder(user: Int, name: String, currency: String, items: [OrderItem]) async throws -> Order {
        try await route(.order(.place(user: user, name: name, currency: currency, items: items)), answer: Self.order)
    }

    @discardableResult
    public func changeOrder(user: Int, order: Int, to status: OrderStatus) async throws -> Order {
        try await route(.order(.changeStatus(user: user, order: order, to: status)), answer: Self.order)
    }

    public func deleteOrder(user: Int, order: Int) async throws {
        try await route(.order(.delete(user: user, order: order))) { outcome -> Void? in
            guard case .orderDeleted = outcome else { return nil }
            return ()
        }
    }

    /// Stores a browser's push subscription for `user`.
    func subscribe(user: Int, session: Int?, endpoint: String, p256dh: [UInt8], auth: [UInt8], limit: Int) async throws {
        try await route(.push(.subscribe(user: user, session: session, endpoint: endpoint, p256dh: p256dh, auth: auth, limit: limit))) {
            outcome -> Void? in
            guard case .pushSubscribed = outcome else { return nil }
            return ()
        }
    }

    /// Removes `user`'s push subscription at `endpoint`; `notFound` when there is none.
    func unsubscribe(user: Int, endpoint: String) async throws {
        try await route(.push(.unsubscribe(user: user, endpoint: endpoint))) { outcome -> Void? in
            guard case .pushRecorded = outcome else { return nil }
            return ()
        }
    }

    /// Push bookkeeping that answers nothing: a delivery, a retry, a cancel.
    func record(_ event: PushEvent) async throws {
        try await route(.push(event)) { outcome -> Void? in
            guard case .pushRecorded = outcome else { return nil }
            return ()
        }
    }

    /// Pushes due now, each taken for `lease` milliseconds (see `PushEvent.claim`).
    func claimPushes(limit: Int, lease: Int, busy: Set<Int>, maxPending: Int) async throws -> PushClaim {
        try await route(.push(.claim(limit: limit, lease: lease, busy: busy, maxPending: maxPending))) {
            guard case .pushesClaimed(let claim) = $0 else { return nil }
            return claim
        }
    }

    /// A push to `subscription` failed; whether the subscription was removed for failing too long.
    func recordFailing(subscription: Int, dropAfter: Int) async throws -> Bool {
        try await route(.push(.failing(subscription: subscription, dropAfter: dropAfter))) {
            guard case .subscriptionFailing(let removed) = $0 else { return nil }
            return removed
        }
    }

    private static func order(_ outcome: EventOutcome) -> Order? {
        guard case .orderChanged(let order) = outcome else { return nil }
        return order
    }

    /// Routes `event` and takes from its outcome what its source needs.
    private func route<Answer>(_ event: Event, answer: (EventOutcome) -> Answer?) async throws -> Answer {
        let outcome = try await route(event)
        guard let answer = answer(outcome) else { throw UnexpectedOutcome(event: event, outcome: outcome) }
        return answer
    }
}

/// An event made an outcome that `EventApplier` never makes for it: a bug,
/// answered 500 and logged with both.
struct UnexpectedOutcome: Error, CustomStringConvertible {
    let event: Event
    let outcome: EventOutcome

    var description: String { "the event \(event) made the outcome \(outcome)" }
}
