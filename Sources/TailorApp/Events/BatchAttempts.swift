/// What the writer does with a batch next, as a value: how its next attempt
/// is written, and what each way an attempt fails leads to. `EventRouter`
/// carries the answers out (writes again, answers, logs); the decisions are
/// tested alone.
///
/// A batch is first written with its events side by side. One event refused
/// beside the others has it written again with each event in a savepoint of
/// its own, so that the refusal is that event's answer alone. A lock wait run
/// out has it written again at once, each event alone and every chat of the
/// batch only tried (`SKIP LOCKED`), so that a write whose chat is still held
/// elsewhere is refused and the rest commits. A conflict the database chose
/// this batch to undo for has it written again whole. Past `maxAttempts` of
/// those, and at any other failure (the commit failed, the connection was
/// lost), every event of the batch gets the error.
struct BatchAttempts {
    /// How an attempt failed.
    enum Failure: Equatable {
        /// One event was refused beside others of the batch.
        case refusedBesideOthers
        /// A lock another transaction holds was not granted within the wait.
        case lockWaitRanOut
        /// The database undid the transaction for another's sake (a deadlock).
        case conflictWithAnotherTransaction
        /// Anything else: nothing of the batch is stored.
        case other
    }

    /// What the writer does after a failed attempt.
    enum Next: Equatable {
        /// Writes the batch again, as the attempts now say.
        case writeAgain
        /// The batch is its one refused event: the refusal is its answer.
        case answerTheRefusal
        /// Every event of the batch gets the error.
        case failEveryEvent
    }

    /// The events in the batch.
    let size: Int
    /// Attempts at most, counting those after a lock wait or a conflict.
    let maxAttempts: Int
    /// Each event in a savepoint of its own.
    private(set) var eachAlone = false
    /// No chat of the batch is waited for: each one's lock is only tried.
    private(set) var triesEveryChat = false
    /// The attempt under way, from 1.
    private(set) var attempt = 1

    init(size: Int, maxAttempts: Int) {
        self.size = size
        self.maxAttempts = maxAttempts
    }

    /// Whether this attempt waits only briefly for locks: after a wait ran
    /// out for this batch, or lately for another (`ChatsHeldElsewhere`).
    func waitsBriefly(heldElsewhereLately: Bool) -> Bool {
        triesEveryChat || heldElsewhereLately
    }

    /// The attempt failed as `failure` says: what comes next.
    mutating func failed(_ failure: Failure) -> Next {
        switch failure {
        case .refusedBesideOthers:
            if size == 1 { return .answerTheRefusal }
            // Alone, each event's refusal is its result: none is refused beside others.
            guard !eachAlone else { return .failEveryEvent }
            eachAlone = true
            return .writeAgain
        case .lockWaitRanOut where attempt < maxAttempts:
            triesEveryChat = true
            eachAlone = true
            attempt += 1
            return .writeAgain
        case .conflictWithAnotherTransaction where attempt < maxAttempts:
            attempt += 1
            return .writeAgain
        case .lockWaitRanOut, .conflictWithAnotherTransaction, .other:
            return .failEveryEvent
        }
    }
}
