/// A message on its way: kept (on disk when the client has a store) before
/// it is sent and until the server has it, with the clientId that makes a
/// second send of it the same message.
struct OutboxEntry: Codable, Sendable, Equatable {
    let chatId: String
    let clientId: String
    let text: String
}

/// The messages not yet taken by the server, oldest first; one type owns them.
actor Outbox {
    private let store: DiskStore
    private var entries: [OutboxEntry]
    private var sending = false
    /// Callers of `sendWaiting` that wait for the send under way to end.
    private var sent: [CheckedContinuation<Void, Never>] = []

    init(store: DiskStore) {
        self.store = store
        entries = store.outbox
    }

    var waiting: [OutboxEntry] { entries }

    /// Callers of `sendWaiting` waiting for the send under way.
    var sendersWaiting: Int { sent.count }

    func keep(_ entry: OutboxEntry) throws {
        entries.append(entry)
        try store.keepOutbox(entries)
    }

    func forget(_ clientId: String) throws {
        entries.removeAll { $0.clientId == clientId }
        try store.keepOutbox(entries)
    }

    func clear() {
        entries = []
    }

    /// Sends what waits, oldest first, through `post`, stopping at the first
    /// the server cannot take now; one refused for good is forgotten. Throws
    /// only when the store cannot be written. A send already under way (the
    /// one a stream that opens starts) is waited for first, and what it left
    /// is tried again: when this returns, every message that waited was tried.
    func sendWaiting(_ post: @Sendable (OutboxEntry) async throws(TailorError) -> Message) async throws {
        while sending { await withCheckedContinuation { sent.append($0) } }
        sending = true
        defer {
            sending = false
            for waiter in sent { waiter.resume() }
            sent = []
        }
        for entry in entries {
            do {
                _ = try await post(entry)
            } catch where error.isPassing {
                return
            } catch {
                // Refused for good (a blocked chat, a text too long): it would be refused again.
            }
            try forget(entry.clientId)
        }
    }
}
