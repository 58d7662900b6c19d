import TailorDomain
import TailorStore

/// Applies one event to the store, inside the writer's transaction, and says what
/// it produced. A rule that says no is thrown and undoes only this event.
///
/// A message and a read mark only queue their statements (see `Later`): a
/// batch asks for all of its events, and the first answer read sends every
/// statement queued, in one round trip on PostgreSQL.
struct EventApplier {
    let store: Store
    let quotas: Quotas
    /// Chats known committed: their members are checked without a query.
    let committedChats: CommittedChats
    /// Milliseconds from a message to its pushes (see `PushSettings.delay`).
    let pushDelay: Int
    /// Where the transaction's entry goes in the feed: a message keeps its position where it can.
    let feed: FeedAppender

    /// The chat, from those known committed or else the store.
    private func chat(id: Int) throws -> Chat? {
        if let chat = committedChats[id] { return chat }
        return try store.chat(id: id)
    }

    /// The chat whose lock `event` takes in a batch, and whether it takes it
    /// exclusively (a read mark) or shares it (a message); nil for an event
    /// that takes no chat's lock.
    static func lockedChat(of event: Event) -> (chat: Int, exclusively: Bool)? {
        switch event {
        case .message(.send(let chat, _, _, _)): (chat, false)
        case .message(.read(let chat, _)): (chat, true)
        default: nil
        }
    }

    /// Takes the chat locks that the messages and read marks among `events`
    /// will need, in one order on every server (see `Store.lockChats`); the
    /// chats of `withoutWaiting` only if no other transaction holds them. The
    /// answer is those of them taken.
    func lockChats(of events: some Sequence<Event>, withoutWaiting tried: Set<Int>) -> Later<Set<Int>> {
        var sharing = Set<Int>(), exclusively = Set<Int>()
        for event in events {
            guard let (chat, exclusive) = Self.lockedChat(of: event) else { continue }
            if exclusive { exclusively.insert(chat) } else { sharing.insert(chat) }
        }
        return store.lockChats(sharing: sharing, exclusively: exclusively, withoutWaiting: tried)
    }

    /// Applies `event` and reads its outcome.
    func apply(_ event: Event, at now: Int) throws -> EventOutcome {
        try start(event, at: now).value()
    }

    /// Applies `event`; its outcome may wait for statements still queued.
    func start(_ event: Event, at now: Int) throws -> Later<EventOutcome> {
        switch event {
        case .message(.send(let chatID, let sender, let text, let clientID)):
            guard let chat = try chat(id: chatID), chat.includes(sender) else { throw StoreError.notFound }
            return store.insertMessage(chat: chatID, sender: sender, text: text, clientID: clientID, recipient: chat.contact(of: sender),
                                       pushDue: now + pushDelay, position: feed.upcomingPosition, at: now)
                .then { .messageSent($0.message, in: chat, duplicate: $0.duplicate, pushes: $0.pushes) }

        case .message(.read(let chatID, let reader)):
            guard let chat = try chat(id: chatID), chat.includes(reader) else { throw StoreError.notFound }
            return store.markRead(chat: chatID, reader: reader, at: now)
                .then { .messagesRead(chat: chat, reader: reader, count: $0, at: now) }

        case .account(.signUp(let name, let tokenHash, let session, let passwordHash)):
            let user = try store.insertUser(name: name, passwordHash: passwordHash, at: now)
            try store.insertToken(hash: tokenHash, user: user.id, at: now)
            return .known(.signedUp(user, session: try session.map { try store.insertSession($0, user: user.id, at: now) }))

        case .account(.startSession(let user, let session)):
            let started = try store.insertSession(session, user: user, at: now)
            return .known(.sessionStarted(started, endedSessions: try store.deleteSessions(of: user, keepingNewest: quotas.sessionsPerUser)))

        case .account(.endSession(let user, let session)):
            return .known(.sessionEnded(try store.deleteSession(id: session, user: user)))

        case .account(.changePassword(let user, let passwordHash, let keeping)):
            try store.setPasswordHash(passwordHash, of: user)
            return .known(.passwordChanged(user: user, endedSessions: try store.deleteSessions(of: user, except: keeping)))

        case .account(.sessionSeen(let session)):
            try store.recordSessionSeen(id: session, at: now)
            return .known(.sessionSeen)

        case .account(.lastSeen(let user, let time)):
            return .known(.lastSeen(user: user, at: time, changed: try store.recordLastSeen(of: user, at: time)))

        case .account(.setPrivacy(let user, let shows)):
            return .known(.privacySet(user: user, showsPresence: shows, changed: try store.setShowsPresence(shows, of: user)))

        case .chat(.block(let user, let chatID, let blocked)):
            guard let chat = try chat(id: chatID), chat.includes(user) else { throw StoreError.notFound }
            return .known(.chatBlocked(chat, by: user, blocked: blocked, changed: try store.setBlocked(blocked, chat: chatID, by: user, at: now)))

        case .chat(.open(let user, let contactName)):
            guard let contact = try store.user(named: contactName) else { throw StoreError.unknownUser }
            let (chat, created) = try store.findOrCreateChat(between: user, and: contact.id, at: now)
            return .known(.chatOpened(chat, contact: contact, created: created))

        case .order(.place(let user, let name, let currency, let items)):
            // Counted inside the writer's transaction: concurrent places cannot pass it together.
            guard try store.orderCount(of: user) < quotas.ordersPerUser else { throw StoreError.tooManyOrders }
            return .known(.orderChanged(try store.insertOrder(user: user, name: name, currency: currency, items: items, at: now)))

        case .order(.changeStatus(let user, let orderID, let status)):
            return .known(.orderChanged(try store.updateOrderStatus(id: orderID, user: user, to: status)))

        case .order(.delete(let user, let orderID)):
            try store.deleteOrder(id: orderID, user: user)
            return .known(.orderDeleted(user: user, order: orderID))

        case .push(let event):
            return .known(try apply(event, at: now))
        }
    }

    private func apply(_ event: PushEvent, at now: Int) throws -> EventOutcome {
        switch event {
        case .subscribe(let user, let session, let endpoint, let p256dh, let auth, let limit):
            return .pushSubscribed(try store.subscribe(user: user, session: session, endpoint: endpoint, p256dh: p256dh, auth: auth,
                                                       limit: limit, at: now))
        case .unsubscribe(let user, let endpoint):
            try store.unsubscribe(user: user, endpoint: endpoint)
        case .claim(let limit, let lease, let busy, let maxPending):
            return .pushesClaimed(try store.claimPushes(at: now, lease: lease, limit: limit, busy: busy, maxPending: maxPending))
        case .delivered(let push, let subscription):
            try store.finishPush(id: push)
            try store.recordSubscriptionWorking(id: subscription)
        case .finished(let push):
            try store.finishPush(id: push)
        case .release(let push, let due):
            try store.releasePush(id: push, due: due)
        case .failing(let subscription, let dropAfter):
            return .subscriptionFailing(removed: try store.recordSubscriptionFailing(id: subscription, at: now, dropAfter: dropAfter))
        case .retry(let push, let due):
            try store.retryPush(id: push, due: due)
        case .subscriptionGone(let subscription):
            try store.removeSubscription(id: subscription)
        case .cancel(let message):
            try store.cancelPushes(of: message)
        }
        return .pushRecorded
    }
}
