import TailorDomain
import TailorFeed
import TailorStore

/// One attempt at a batch on the writer's connection, and what tells its
/// failures apart for `BatchAttempts`.
extension EventRouter {
    /// One attempt at the batch, as `attempts` says to write it: the events'
    /// results and the feed's entry, committed; throws when nothing of it is stored.
    func attempt(_ events: [Event], as attempts: BatchAttempts) throws -> ([Result<EventOutcome, any Error>], FeedEntry?) {
        let connection = writer.value.connection
        let store = Store(connection)
        let applier = EventApplier(store: store, quotas: quotas, committedChats: writer.value.committedChats, pushDelay: pushDelay,
                                   feed: writer.value.feed)
        // The batch's chats, made only when some are to be tried rather than waited for.
        let tried = attempts.triesEveryChat ? Self.chats(of: events) : writer.value.heldElsewhere.among(Self.chats(of: events))
        var held: Set<Int> = []
        var results: [Result<EventOutcome, any Error>] = []
        results.reserveCapacity(events.count)
        let entry = try committing { try connection.transaction {
            let time = now()
            // What held a lock past the wait once is not waited for as long again.
            if attempts.waitsBriefly(heldElsewhereLately: writer.value.heldElsewhere.waitsBriefly()) {
                store.waitForLocks(atMost: Self.lockWaitAfterTimeout)
            }
            // Before any event: savepoints undone later keep these locks.
            let taken = applier.lockChats(of: events, withoutWaiting: tried)
            if !tried.isEmpty { held = tried.subtracting(try taken.value()) }
            func heldElsewhere(_ event: Event) -> HeldElsewhere? {
                guard !held.isEmpty, let chat = EventApplier.lockedChat(of: event)?.chat, held.contains(chat) else { return nil }
                return HeldElsewhere(chat: chat)
            }
            if attempts.eachAlone {
                for event in events {
                    if let refusal = heldElsewhere(event) {
                        results.append(.failure(refusal))
                        continue
                    }
                    let result = Result { try connection.savepoint { try applier.apply(event, at: time) } }
                    // A deadlock with another server's transaction: undoing
                    // this event alone would leave both holding their locks.
                    if case .failure(let error) = result, Self.isConflictWithAnotherTransaction(error) { throw error }
                    results.append(result)
                }
            } else {
                do {
                    // Every event asks before any answer is read: the
                    // first read sends all their statements together.
                    let outcomes = try events.map { event in
                        try heldElsewhere(event).map { Later(result: .failure($0)) } ?? applier.start(event, at: time)
                    }
                    for outcome in outcomes { results.append(Result { try outcome.value() }) }
                    for case .failure(let error) in results where !(error is HeldElsewhere) { throw error }
                } catch {
                    if Self.isConflictWithAnotherTransaction(error) || Self.isLockWaitTimeout(error) { throw error }
                    throw RefusedBesideOthers(error: error)
                }
            }
            return try recordInFeed(results, store: store)
        } }
        writer.value.committedChats.noteCommitted(results)
        writer.value.heldElsewhere.tried(tried, held: held)
        return (results, entry)
    }

    static func chats(of events: [Event]) -> Set<Int> {
        Set(events.compactMap { EventApplier.lockedChat(of: $0)?.chat })
    }

    /// The database undid the transaction for another's sake: it may be written again whole.
    static func isConflictWithAnotherTransaction(_ error: any Error) -> Bool {
        (error as? any DatabaseFailure)?.isConflictWithAnotherTransaction == true
    }

    /// A lock another transaction holds was not granted in time.
    static func isLockWaitTimeout(_ error: any Error) -> Bool {
        (error as? any DatabaseFailure)?.isLockWaitTimeout == true
    }

    /// How an attempt at a batch failed, for `BatchAttempts`.
    static func failure(of error: any Error) -> BatchAttempts.Failure {
        if error is RefusedBesideOthers { return .refusedBesideOthers }
        if isLockWaitTimeout(error) { return .lockWaitRanOut }
        if isConflictWithAnotherTransaction(error) { return .conflictWithAnotherTransaction }
        return .other
    }

    /// Records the batch's changes in the feed, in its transaction; nil when
    /// none of its events changed what anyone sees.
    private func recordInFeed(_ results: [Result<EventOutcome, any Error>], store: Store) throws -> FeedEntry? {
        let changes = results.flatMap { result -> [Change] in
            guard case .success(let outcome) = result else { return [] }
            return Change.changes(of: outcome)
        }
        guard !changes.isEmpty else { return nil }
        let position = try writer.value.feed.append(ChangeEncoding.bytes(of: changes), touching: ChangeAudience.users(of: changes), in: store)
        return FeedEntry(position: position, changes: changes)
    }
}

/// An event of a batch written without savepoints was refused: the batch is
/// undone and written again, each event in a savepoint of its own.
struct RefusedBesideOthers: Error {
    let error: any Error
}

/// The writer connection and its place in the feed, used only on the
/// writer's thread (handed to its jobs as `ThreadConfined`).
final class WriterConnection {
    let connection: any DatabaseConnection
    let feed: FeedAppender
    let committedChats = CommittedChats()
    var heldElsewhere: ChatsHeldElsewhere

    init(_ connection: any DatabaseConnection, feedWindow: Int, origin: String, announcement: FeedAnnouncement?,
         heldElsewhere: ChatsHeldElsewhere) throws {
        self.connection = connection
        self.heldElsewhere = heldElsewhere
        feed = try FeedAppender(store: Store(connection), window: feedWindow, origin: origin, announcement: announcement)
    }
}
