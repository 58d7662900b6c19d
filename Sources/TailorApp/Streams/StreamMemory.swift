import Synchronization

/// The bytes that event streams hold for events not yet written, over all
/// streams, against a budget.
///
/// A stream holds at most one unsent view model per topic, but a view model may
/// be large and each slow stream may hold a different version of it: a
/// thousand streams that stop reading could pin a gigabyte. Every queue change
/// of every stream is counted here; past the budget the streams holding the
/// most are ended (they resume with Last-Event-ID). Bytes shared by several
/// streams are counted once for each: the count is an upper bound.
final class StreamMemory: Sendable {
    /// All streams together.
    let budget: Int
    /// All the streams of one user together.
    let budgetPerUser: Int
    private let held = Atomic<Int>(0)
    private let endedSlow = Atomic<Int>(0)

    init(budget: Int, budgetPerUser: Int) {
        self.budget = budget
        self.budgetPerUser = budgetPerUser
    }

    /// Bytes held now.
    var total: Int { held.load(ordering: .relaxed) }

    func change(by delta: Int) {
        if delta != 0 { held.add(delta, ordering: .relaxed) }
    }

    /// Streams ended for reading too slowly (past the budget or the
    /// notifications' bound), since the start.
    var streamsEndedSlow: Int { endedSlow.load(ordering: .relaxed) }

    func noteEndedSlow(_ count: Int = 1) {
        endedSlow.add(count, ordering: .relaxed)
    }

    /// The streams to end, the largest holders first, so that what `streams`
    /// hold comes back under `limit` (with room, so that the next change does
    /// not end another at once).
    /// Streams already ending count as freed: their bytes go when their loops close them.
    static func largestHolders(of streams: [Subscriber], over limit: Int) -> [Subscriber] {
        var holding = streams.filter { !$0.isEnding }.map { ($0, $0.heldBytes) }
        var sum = holding.reduce(0) { $0 + $1.1 }
        guard sum > limit else { return [] }
        holding.sort { $0.1 > $1.1 }
        var ended: [Subscriber] = []
        for (subscriber, bytes) in holding where sum > limit * 3 / 4 && bytes > 0 {
            ended.append(subscriber)
            sum -= bytes
        }
        return ended
    }
}
