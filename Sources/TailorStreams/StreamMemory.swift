import Synchronization
import TailorDomain

/// The bytes that event streams hold for events not yet written, over all
/// streams, against a budget.
///
/// A stream holds at most one unsent view model per topic, but a view model may
/// be large and each slow stream may hold a different version of it: a
/// thousand streams that stop reading could pin a gigabyte. Every queue change
/// of every stream is counted here; past the budget the streams holding the
/// most are ended (they resume with Last-Event-ID). An event shared by several
/// streams is counted once, plus what each holder adds (`StreamEvent.hold`),
/// so the count is what the events really keep alive: a prompt fan-out holds
/// one copy, while streams that stop reading hold the versions they were
/// stuck on, each its own.
package final class StreamMemory: Sendable {
    /// All streams together.
    package let budget: Int
    /// All the streams of one user together.
    package let budgetPerUser: Int
    private let held = Atomic<Int>(0)
    private let endedSlow = Atomic<Int>(0)

    package init(budget: Int, budgetPerUser: Int) {
        self.budget = budget
        self.budgetPerUser = budgetPerUser
    }

    /// Bytes held now.
    package var total: Int { held.load(ordering: .relaxed) }

    package func change(by delta: Int) {
        if delta != 0 { held.add(delta, ordering: .relaxed) }
    }

    /// Streams ended for reading too slowly (past the budget or the
    /// notifications' bound), since the start.
    package var streamsEndedSlow: Int { endedSlow.load(ordering: .relaxed) }

    package func noteEndedSlow(_ count: Int = 1) {
        endedSlow.add(count, ordering: .relaxed)
    }

    /// What one stream holds, for choosing which to end.
    package struct Holding: Sendable {
        package let user: Int
        package let bytes: Int
    }

    /// Which of `holdings` to end (their indexes) so that what they hold
    /// comes back under `limit`, with room (to three quarters of it), so that
    /// the next change does not end another at once. Each time the largest
    /// holding of the user whose streams hold the most goes: one user's
    /// fan-out ends that user's streams before anyone else's.
    package static func toEnd(_ holdings: [Holding], over limit: Int) -> [Int] {
        var sum = holdings.reduce(0) { $0 + $1.bytes }
        guard sum > limit else { return [] }
        // Each user's holdings, the largest last; and what each user holds in all.
        var byUser: [Int: [Int]] = [:]
        for (index, holding) in holdings.enumerated() where holding.bytes > 0 { byUser[holding.user, default: []].append(index) }
        for user in byUser.keys { byUser[user]?.sort { holdings[$0].bytes < holdings[$1].bytes } }
        var perUser = byUser.mapValues { $0.reduce(0) { $0 + holdings[$1].bytes } }
        var ended: [Int] = []
        while sum > limit * 3 / 4, let (user, _) = perUser.max(by: { $0.value < $1.value }), let index = byUser[user]?.popLast() {
            ended.append(index)
            sum -= holdings[index].bytes
            perUser[user] = byUser[user]?.isEmpty == false ? perUser[user]! - holdings[index].bytes : nil
        }
        return ended
    }
}
