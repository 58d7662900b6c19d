import TailorPresence
import TailorViews

/// What `tailor users disable` hears back from the servers on PostgreSQL,
/// over their presence channel: which servers run (any signal of theirs, such
/// as the heartbeat that answers its roll call) and which of them have
/// followed the feed through the disable (`applied`, sent once a server lets
/// the account in no more). It is done when every server heard has said so.
struct DisableConfirmations {
    /// The feed position of the disable.
    let position: Int
    /// The tool's own name in the channel: its own roll call comes back to it.
    let me: String
    private(set) var running: Set<String> = []
    private(set) var confirmed: Set<String> = []

    init(position: Int, me: String) {
        self.position = position
        self.me = me
    }

    mutating func heard(_ payload: String) {
        guard let (signal, sender) = PresenceSignal.read(payload), sender != me, signal != .rollCall else { return }
        running.insert(sender)
        // The feed is followed in order: a later position covers this one.
        if case .applied(let applied) = signal, applied >= position { confirmed.insert(sender) }
    }

    /// The servers heard that have not confirmed yet, by name.
    var waitingFor: [String] { running.subtracting(confirmed).sorted() }

    /// For the operator.
    var sentence: String {
        if running.isEmpty { return "no server answered on this database" }
        let waiting = waitingFor
        guard waiting.isEmpty else {
            return "not confirmed by \(waiting.joined(separator: ", ")) of \(running.count) servers (each ends them once it follows the feed)"
        }
        return "confirmed by \(running.count) server\(running.count == 1 ? "" : "s")"
    }
}
