import Synchronization
import TailorHTTP
import TailorLoop

/// One thread on which the streams' new view models are built. Changes handed to
/// it while it is busy wait together for its next pass.
final class PublisherLane: Sendable {
    private struct Waiting {
        var changes = Set<TopicChange>()
        var notifications: [EventStreams.Notification] = []
        /// The feed position of the latest change waiting.
        var position: Int64 = 0
        /// Cached versions to free after the pass, off the thread that applies the feed.
        var toFree: [CachedRepresentation] = []
        var passScheduled = false
    }

    private let thread: SerialThread
    private let waiting = Mutex(Waiting())

    init(index: Int) {
        thread = SerialThread(name: "publish-\(index)")
    }

    /// Hands over changes at `position`, which is never below what was handed
    /// before, and cached versions to free after the next pass.
    func publish(_ changes: Set<TopicChange>, notifications: [EventStreams.Notification], position: Int64,
                 freeing toFree: [CachedRepresentation] = [], to streams: EventStreams) {
        let schedule = waiting.withLock { waiting in
            waiting.changes.formUnion(changes)
            waiting.notifications += notifications
            waiting.toFree += toFree
            waiting.position = position
            defer { waiting.passScheduled = true }
            return !waiting.passScheduled
        }
        if schedule { thread.async { self.publishWaiting(to: streams) } }
    }

    /// Publishes what waits, until nothing does.
    private func publishWaiting(to streams: EventStreams) {
        while true {
            let next = waiting.withLock { waiting -> Waiting? in
                guard !waiting.changes.isEmpty || !waiting.notifications.isEmpty else {
                    waiting.passScheduled = false
                    return nil
                }
                defer { waiting = Waiting(passScheduled: true) }
                return waiting
            }
            guard let next else { return }
            streams.publish(next.changes, notifications: next.notifications, position: next.position)
        }
    }
}
