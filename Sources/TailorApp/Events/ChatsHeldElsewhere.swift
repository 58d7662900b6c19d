import TailorLoop
import TailorStore

/// The chats whose lock another server's transaction held past the writer's
/// lock wait: that server is slow, or stopped inside its transaction (frozen,
/// cut off) until PostgreSQL ends it. The writer's batches only try these
/// chats' locks (`SKIP LOCKED`): a write to one of them that finds it still
/// held is answered at once with `HeldElsewhere`, and the rest of the batch,
/// and every write to another chat, commits without waiting. A chat is let go
/// once a batch takes its lock. Used by the writer's thread alone.
///
/// Such a transaction holds more than the chat found: every chat of its
/// batch. So for a while after a lock wait ran out (`briefly`), every batch
/// waits only briefly for any lock (`EventRouter.lockWaitAfterTimeout`): the
/// next chat it holds costs one brief wait, not another whole one.
struct ChatsHeldElsewhere {
    /// Each chat and when it was found held, in monotonic nanoseconds.
    private var found: [Int: UInt64] = [:]
    /// Until when batches wait only briefly for a lock.
    private var briefUntil: UInt64 = 0

    /// Nanoseconds lock waits stay brief after one ran out: twice as long as
    /// PostgreSQL lets a transaction of ours idle (`--idle-transaction-timeout`),
    /// so that the other server's transaction has ended by then.
    let briefFor: UInt64
    /// Nanoseconds after which a chat found held and not asked for since is
    /// let go: PostgreSQL ends an abandoned transaction well before.
    let forgetAfter: UInt64

    /// Both windows follow `idleTransactionTimeout`, the servers' own
    /// (every server of a database is given the same).
    init(idleTransactionTimeout: Duration) {
        let idle = MonotonicClock.nanoseconds(idleTransactionTimeout)
        briefFor = 2 * idle
        forgetAfter = 12 * idle
    }

    /// A lock wait ran out: waits are brief for a while.
    mutating func lockWaitRanOut(at now: UInt64 = MonotonicClock.now) {
        briefUntil = now + briefFor
    }

    /// Whether a batch now waits only briefly for a lock.
    func waitsBriefly(at now: UInt64 = MonotonicClock.now) -> Bool {
        now < briefUntil
    }

    /// Those of `chats` found held and not taken since; `chats` is made only when some are.
    func among(_ chats: @autoclosure () -> Set<Int>) -> Set<Int> {
        found.isEmpty ? [] : chats().filter { found[$0] != nil }
    }

    /// A batch tried `tried` and found `held` still held: the others are free again.
    mutating func tried(_ tried: Set<Int>, held: Set<Int>, at now: UInt64 = MonotonicClock.now) {
        for chat in tried.subtracting(held) { found[chat] = nil }
        for chat in held where found[chat] == nil { found[chat] = now }
        if !held.isEmpty { found = found.filter { now &- $0.value < forgetAfter } }
    }

    var count: Int { found.count }
}

/// A write refused because another server's transaction holds its chat: it
/// was not stored, and may be sent again (`Retry-After`) once that
/// transaction ends, by its commit or by PostgreSQL's idle timeout.
/// The writer's own finding, not a failure of the database: answered as a
/// lock wait run out is (`APIError.locked`).
struct HeldElsewhere: Error, CustomStringConvertible {
    let chat: Int

    var description: String {
        "chat \(chat) is locked by another server's transaction that has not ended; the write was not stored"
    }
}
