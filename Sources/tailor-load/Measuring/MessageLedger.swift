import Synchronization

/// Every message the scenario sends, by number: when it was due, when the
/// server's answer accepted it, and when its recipient's stream showed it. From
/// this come two end-to-end latencies and the count of lost events:
/// - from when the message was due: what the sender lived through, including
///   any wait for the POST and its answer;
/// - from when its answer was read: the fan-out alone. An event that arrives
///   before the answer is read counts as 0.
final class MessageLedger: Sendable {
    private struct Record {
        var dueAt: UInt64 = 0
        var recipient: Int32 = -1
        var acceptedAt: UInt64 = 0
        var deliveredAt: UInt64 = 0
    }

    private struct State {
        var records: [Record]
        var scheduled = 0
        var accepted = 0
        var delivered = 0
        var fromDue = LatencyHistogram()
        var fromAccepted = LatencyHistogram()
    }

    private let state: Mutex<State>
    /// Where end-to-end latencies also go by interval, once sending starts.
    let series = Mutex<IntervalSeries?>(nil)

    static let fromDueName = "message due → recipient's stream"
    static let fromAcceptedName = "message accepted → recipient's stream"

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

    func accepted(_ number: Int, at time: UInt64) {
        state.withLock { state in
            state.records[number].acceptedAt = time
            state.accepted += 1
            if state.records[number].deliveredAt != 0 { state.fromAccepted.record(nanoseconds: 0) }
        }
    }

    /// The stream of `user` showed messages `numbers` at `time`; the sender's
    /// own copies and repeats (a later view model still holds them) are not
    /// deliveries.
    func seen(_ numbers: [Int], by user: Int, at time: UInt64) {
        guard !numbers.isEmpty else { return }
        let delivered = state.withLock { state -> [(fromDue: UInt64, fromAccepted: UInt64?)] in
            var delivered: [(fromDue: UInt64, fromAccepted: UInt64?)] = []
            for number in numbers where number < state.records.count && state.records[number].recipient == Int32(user) {
                guard state.records[number].deliveredAt == 0 else { continue }
                state.records[number].deliveredAt = time
                state.delivered += 1
                let fromDue = time &- state.records[number].dueAt
                state.fromDue.record(nanoseconds: fromDue)
                let acceptedAt = state.records[number].acceptedAt
                var fromAccepted: UInt64?
                if acceptedAt != 0 {
                    // Both times were read before the lock: the answer may look a little later.
                    let latency = time > acceptedAt ? time - acceptedAt : 0
                    state.fromAccepted.record(nanoseconds: latency)
                    fromAccepted = latency
                }
                delivered.append((fromDue, fromAccepted))
            }
            return delivered
        }
        guard let series = series.withLock({ $0 }) else { return }
        for latency in delivered {
            series.record(Self.fromDueName, nanoseconds: latency.fromDue, at: time)
            if let fromAccepted = latency.fromAccepted { series.record(Self.fromAcceptedName, nanoseconds: fromAccepted, at: time) }
        }
    }

    struct Counts: Sendable {
        var scheduled: Int
        var accepted: Int
        var delivered: Int
        /// Accepted, to a recipient with a stream, and never shown on it.
        var lost: Int
        var fromDue: LatencyHistogram
        var fromAccepted: LatencyHistogram
    }

    /// `hasStream(user)` tells whether the recipient holds a stream.
    func counts(hasStream: (Int) -> Bool) -> Counts {
        state.withLock { state in
            var lost = 0
            for record in state.records where record.acceptedAt != 0 && record.deliveredAt == 0 && hasStream(Int(record.recipient)) {
                lost += 1
            }
            return Counts(scheduled: state.scheduled, accepted: state.accepted, delivered: state.delivered, lost: lost,
                          fromDue: state.fromDue, fromAccepted: state.fromAccepted)
        }
    }

    /// Messages accepted whose recipient's stream has not shown them yet.
    func outstanding(hasStream: (Int) -> Bool) -> Int { counts(hasStream: hasStream).lost }
}
