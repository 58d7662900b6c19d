import Synchronization

/// Every message the scenario sends, by number: when it was due, whether the
/// server accepted it, and when its recipient's stream showed it. From this
/// come end-to-end latencies and the count of lost events.
final class MessageLedger: Sendable {
    private struct Record {
        var dueAt: UInt64 = 0
        var recipient: Int32 = -1
        var accepted = false
        var deliveredAt: UInt64 = 0
    }

    private struct State {
        var records: [Record]
        var scheduled = 0
        var accepted = 0
        var delivered = 0
        var endToEnd = LatencyHistogram()
    }

    private let state: Mutex<State>

    init(capacity: Int) {
        state = Mutex(State(records: [Record](repeating: Record(), count: capacity)))
    }

    func scheduled(_ number: Int, dueAt: UInt64, recipient: Int) {
        state.withLock {
            $0.records[number].dueAt = dueAt
            $0.records[number].recipient = Int32(recipient)
            $0.scheduled += 1
        }
    }

    func accepted(_ number: Int) {
        state.withLock {
            $0.records[number].accepted = true
            $0.accepted += 1
        }
    }

    /// The stream of `user` showed messages `numbers` at `time`; the sender's
    /// own copies and repeats (a later view model still holds them) are not
    /// deliveries.
    func seen(_ numbers: [Int], by user: Int, at time: UInt64) {
        guard !numbers.isEmpty else { return }
        state.withLock { state in
            for number in numbers where number < state.records.count && state.records[number].recipient == Int32(user) {
                guard state.records[number].deliveredAt == 0 else { continue }
                state.records[number].deliveredAt = time
                state.delivered += 1
                state.endToEnd.record(nanoseconds: time &- state.records[number].dueAt)
            }
        }
    }

    struct Counts: Sendable {
        var scheduled: Int
        var accepted: Int
        var delivered: Int
        /// Accepted, to a recipient with a stream, and never shown on it.
        var lost: Int
        var endToEnd: LatencyHistogram
    }

    /// `hasStream(user)` tells whether the recipient holds a stream.
    func counts(hasStream: (Int) -> Bool) -> Counts {
        state.withLock { state in
            var lost = 0
            for record in state.records where record.accepted && record.deliveredAt == 0 && hasStream(Int(record.recipient)) {
                lost += 1
            }
            return Counts(scheduled: state.scheduled, accepted: state.accepted, delivered: state.delivered, lost: lost, endToEnd: state.endToEnd)
        }
    }

    /// Messages accepted whose recipient's stream has not shown them yet.
    func outstanding(hasStream: (Int) -> Bool) -> Int { counts(hasStream: hasStream).lost }
}
