import Synchronization
import TailorHTTP
import TailorLoop

/// One open event stream: the topics it follows and what waits to be sent.
///
/// A newer view model of a topic replaces an unsent older one, so a slow reader
/// holds at most one event per topic (lossless for state: each event is a whole
/// view model). Notifications queue up to a bound; a stream past it is too far
/// behind and is ended, to resume with Last-Event-ID.
final class Subscriber: Sendable {
    let user: Int
    let topics: [Topic]

    /// Notifications held for a stream that is not reading.
    static let maxQueuedNotifications = 64

    private struct Queue {
        var pending: [Topic: StreamEvent] = [:]
        var notifications: [StreamEvent] = []
        /// Topics that received a change since the stream opened: its initial
        /// (possibly older) view model must not replace them.
        var changed: Set<Topic> = []
        var heartbeatDue = false
        var ended = false
        var waiter: UnsafeContinuation<Void, Never>?
    }

    private let queue = Mutex(Queue())

    init(user: Int, topics: [Topic]) {
        self.user = user
        self.topics = topics
    }

    /// What the stream writes next, oldest id first; nil once the stream must end.
    func next() async -> [SharedBytes]? {
        while true {
            let batch = queue.withLock { queue -> [SharedBytes]?? in
                if queue.ended { return .some(nil) }
                if queue.pending.isEmpty && queue.notifications.isEmpty && !queue.heartbeatDue { return .none }
                var bytes: [SharedBytes]
                if queue.notifications.isEmpty && queue.pending.count == 1 {
                    // The common case of a fan-out: one new view model, nothing to order.
                    bytes = [queue.pending.first!.value.bytes]
                } else {
                    var events = Array(queue.pending.values) + queue.notifications
                    events.sort { $0.id < $1.id }
                    bytes = events.map(\.bytes)
                }
                queue.pending.removeAll(keepingCapacity: true)
                queue.notifications.removeAll(keepingCapacity: true)
                if bytes.isEmpty { bytes = [StreamEvent.heartbeat] }
                queue.heartbeatDue = false
                return .some(bytes)
            }
            if let batch { return batch }
            await withUnsafeContinuation { continuation in
                let wakeNow = queue.withLock { queue -> Bool in
                    if queue.ended || !queue.pending.isEmpty || !queue.notifications.isEmpty || queue.heartbeatDue { return true }
                    queue.waiter = continuation
                    return false
                }
                if wakeNow { continuation.resume() }
            }
        }
    }

    /// A topic's initial view model, unless a change has already brought a newer one.
    func pushInitial(_ event: StreamEvent, for topic: Topic) {
        wake { queue in
            guard !queue.changed.contains(topic) else { return }
            queue.pending[topic] = event
        }
    }

    /// A topic's new view model; replaces one not yet sent.
    func push(_ event: StreamEvent, for topic: Topic) {
        wake { queue in
            queue.changed.insert(topic)
            queue.pending[topic] = event
        }
    }

    /// Queues a notification; false when the stream is too far behind to take it.
    func pushNotification(_ event: StreamEvent) -> Bool {
        var accepted = true
        wake { queue in
            if queue.notifications.count >= Self.maxQueuedNotifications {
                queue.ended = true
                accepted = false
            } else {
                queue.notifications.append(event)
            }
        }
        return accepted
    }

    func heartbeat() {
        wake { $0.heartbeatDue = true }
    }

    /// Ends the stream after what it is writing now.
    func end() {
        wake { $0.ended = true }
    }

    /// Events waiting to be written.
    var queuedCount: Int { queue.withLock { $0.pending.count + $0.notifications.count } }

    private func wake(_ change: (inout Queue) -> Void) {
        let waiter = queue.withLock { queue -> UnsafeContinuation<Void, Never>? in
            change(&queue)
            defer { queue.waiter = nil }
            return queue.waiter
        }
        waiter?.resume()
    }
}
