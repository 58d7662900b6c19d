import TailorStore

/// Applies one event to the store, inside the writer's transaction, and says what
/// it produced. A rule that says no is thrown and undoes only this event.
struct EventApplier {
    let store: Store
    /// Orders one user may have at most.
    let maxOrdersPerUser: Int
    /// Chats known committed: their members are checked without a query.
    let committedChats: CommittedChats

    /// The chat, from those known committed or else the store.
    private func chat(id: Int) throws -> Chat? {
        if let chat = committedChats[id] { return chat }
        return try store.chat(id: id)
    }

    func apply(_ event: Event, at now: Int) throws -> EventOutcome {
        switch event {
        case .account(.signUp(let name, let tokenHash, let session, let passwordHash)):
            let user = try store.insertUser(name: name, passwordHash: passwordHash, at: now)
            try store.insertToken(hash: tokenHash, user: user.id, at: now)
            return .signedUp(user, session: try session.map { try store.insertSession($0, user: user.id, at: now) })

        case .account(.startSession(let user, let session)):
            return .sessionStarted(try store.insertSession(session, user: user, at: now))

        case .account(.endSession(let user, let session)):
            return .sessionEnded(try store.deleteSession(id: session, user: user))

        case .account(.changePassword(let user, let passwordHash, let keeping)):
            try store.setPasswordHash(passwordHash, of: user)
            return .passwordChanged(user: user, endedSessions: try store.deleteSessions(of: user, except: keeping))

        case .account(.sessionSeen(let session)):
            try store.recordSessionSeen(id: session, at: now)
            return .sessionSeen

        case .chat(.open(let user, let contactName)):
            guard let contact = try store.user(named: contactName) else { throw StoreError.unknownUser }
            let (chat, created) = try store.findOrCreateChat(between: user, and: contact.id, at: now)
            return .chatOpened(chat, contact: contact, created: created)

        case .message(.send(let chatID, let sender, let text, let clientID)):
            guard let chat = try chat(id: chatID), chat.includes(sender) else { throw StoreError.notFound }
            let (message, duplicate) = try store.insertMessage(chat: chatID, sender: sender, text: text, clientID: clientID, at: now)
            return .messageSent(message, in: chat, duplicate: duplicate)

        case .message(.read(let chatID, let reader)):
            guard let chat = try chat(id: chatID), chat.includes(reader) else { throw StoreError.notFound }
            return .messagesRead(chat: chat, reader: reader, count: try store.markRead(chat: chatID, reader: reader, at: now), at: now)

        case .order(.place(let user, let name, let currency, let items)):
            // Counted inside the writer's transaction: concurrent places cannot pass it together.
            guard try store.orderCount(of: user) < maxOrdersPerUser else { throw StoreError.tooManyOrders }
            return .orderChanged(try store.insertOrder(user: user, name: name, currency: currency, items: items, at: now))

        case .order(.changeStatus(let user, let orderID, let status)):
            return .orderChanged(try store.updateOrderStatus(id: orderID, user: user, to: status))

        case .order(.delete(let user, let orderID)):
            try store.deleteOrder(id: orderID, user: user)
            return .orderDeleted(user: user, order: orderID)
        }
    }
}
