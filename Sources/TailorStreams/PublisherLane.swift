import Synchronization
import TailorHTTP
import TailorLoop
import TailorViews

/// Where one share of the users' new view models are built: passes, one at a
/// time, on an event loop of the server, as a channel's work in NIO belongs
/// to its loop. A pass costs no thread of its own to wake and no switch to
/// it, and the streams it writes are often on the same loop. Changes handed
/// to it while a pass runs wait together for the next. Rebuilds (at
/// midnight, after a failed build) wait here too, so that a stream gets every
/// version of a view model in the order the lane built them, never an older
/// one after a newer.
package final class PublisherLane: Sendable {
    private struct Waiting {
        var changes = Set<TopicChange>()
        /// Topics to build again with no change of their own.
        var rebuilds = Set<TopicChange>()
        var notifications: [EventStreams.Notification] = []
        /// Every topic the lane's streams follow changed (the feed started over).
        var everyFollowedTopic = false
        /// Every topic the lane's streams follow is to be built again (midnight).
        var rebuildsEveryFollowedTopic = false
        /// The feed position of the latest change waiting.
        var position: Int64 = 0
        /// Cached versions to free after the pass, off the thread that applies the feed.
        var toFree: [CachedRepresentation] = []
        var passScheduled = false

        var hasWork: Bool {
            !changes.isEmpty || !notifications.isEmpty || !rebuilds.isEmpty || everyFollowedTopic || rebuildsEveryFollowedTopic
        }
    }

    private let index: Int
    private let loop: EventLoop
    private let waiting = Mutex(Waiting())

    package init(index: Int, loop: EventLoop) {
        self.index = index
        self.loop = loop
    }

    /// Hands over changes at `position`, which is never below what was handed
    /// before, and cached versions to free after the next pass: kept by the
    /// lane alone, so that the lane frees them.
    package func publish(_ changes: Set<TopicChange>, notifications: [EventStreams.Notification], position: Int64,
                 freeing toFree: consuming [CachedRepresentation] = [], to streams: EventStreams) {
        var handed = consume toFree
        hand(to: streams) { waiting in
            // Most often nothing waits: the set is taken as it is, not copied into another.
            if waiting.changes.isEmpty { waiting.changes = changes } else { waiting.changes.formUnion(changes) }
            waiting.notifications += notifications
            if waiting.toFree.isEmpty { swap(&waiting.toFree, &handed) } else { waiting.toFree += handed }
            waiting.position = position
        }
    }

    /// The feed started over at `position`: every topic the lane's streams
    /// follow is built anew in the next pass, which is found then, on the
    /// lane's loop.
    package func publishEveryFollowedTopic(at position: Int64, to streams: EventStreams) {
        hand(to: streams) { waiting in
            waiting.everyFollowedTopic = true
            waiting.position = position
        }
    }

    /// Every topic the lane's streams follow is to be built again in the next
    /// pass, with no change of its own: calls before that pass come to one.
    package func rebuildEveryFollowedTopic(to streams: EventStreams) {
        hand(to: streams) { $0.rebuildsEveryFollowedTopic = true }
    }

    /// Hands over topics to build again, in the next pass.
    package func rebuild(_ changes: Set<TopicChange>, to streams: EventStreams) {
        hand(to: streams) { $0.rebuilds.formUnion(changes) }
    }

    /// Hands over topics to build again once `seconds` have passed: a retry
    /// after a failed build.
    package func rebuild(_ changes: Set<TopicChange>, after seconds: Double, to streams: EventStreams) {
        loop.after(seconds: seconds) { [self] in rebuild(changes, to: streams) }
    }

    /// Adds to what waits with `update`, and starts the passes unless they are going.
    private func hand(to streams: EventStreams, _ update: (inout Waiting) -> Void) {
        let schedule = waiting.withLock { waiting in
            update(&waiting)
            defer { waiting.passScheduled = true }
            return !waiting.passScheduled
        }
        if schedule { startPasses(to: streams) }
    }

    /// Passes on the lane's loop until nothing waits. A pass that reads the
    /// database waits for it off the loop, and the loop serves its
    /// connections meanwhile; the next pass starts after it.
    private func startPasses(to streams: EventStreams) {
        // The task is made by a job of the loop, so that its first pass runs
        // after the work the feed queues there meanwhile: the answers to the
        // writes of the very commit the pass publishes wait for no pass.
        loop.execute { [self] in
            Task(executorPreference: loop) { [self] in await publishWaiting(to: streams) }
        }
    }

    /// Publishes what waits, until nothing does.
    private func publishWaiting(to streams: EventStreams) async {
        while true {
            let next = waiting.withLock { waiting -> Waiting? in
                guard waiting.hasWork else {
                    waiting.passScheduled = false
                    return nil
                }
                defer { waiting = Waiting(passScheduled: true) }
                return waiting
            }
            guard let next else { return }
            if next.changes.isEmpty && next.notifications.isEmpty && !next.everyFollowedTopic {
                await streams.publish(lane: index, next.rebuilds, notifications: [], everyFollowedTopic: next.rebuildsEveryFollowedTopic)
            } else {
                // Built in this pass, a rebuilt topic shows what a changed one does.
                await streams.publish(lane: index, next.changes.union(next.rebuilds), notifications: next.notifications, position: next.position,
                                      everyFollowedTopic: next.everyFollowedTopic || next.rebuildsEveryFollowedTopic)
            }
        }
    }
}
