import TailorHTTP
import TailorLoop
import TailorViews

/// Work handed to the lanes (each commit's changes, rebuilds, the feed
/// starting over), and the passes that publish it: one at a time on each
/// lane's loop, until nothing waits. A pass costs no thread of its own to
/// wake and no switch to it, and the streams it writes are on its loop.
extension EventStreams {
    /// Hands the changes at `position` and their notifications to their users'
    /// lanes, and cached versions to free after a pass. The versions go whole
    /// to the first lane with work and no reference to them stays with the
    /// caller: whoever lets the last one go frees them, and that must not be
    /// the thread that applies the feed, which every commit waits for.
    package func handOver(_ changes: Set<TopicChange>, notifications: [Notification], position: Int64,
                          freeing toFree: consuming [CachedRepresentation] = []) {
        var work = [(changes: Set<TopicChange>, notifications: [Notification])](
            repeating: (Set(minimumCapacity: changes.count), []), count: lanes.count)
        for change in changes { work[lane(of: change.user).index].changes.insert(change) }
        for notification in notifications { work[lane(of: notification.recipient).index].notifications.append(notification) }
        var unhanded = consume toFree
        for (lane, work) in zip(lanes, work) where !work.changes.isEmpty || !work.notifications.isEmpty {
            if lane.hand({ $0.add(work.changes, notifications: work.notifications, position: position, freeing: &unhanded) }) {
                startPasses(on: lane)
            }
        }
    }

    /// Cached versions dropped at `position` with no change to hand over
    /// (`ViewCache.forget`), freed after a pass of the first lane, as
    /// `handOver` frees them.
    package func free(_ versions: consuming [CachedRepresentation], at position: Int64) {
        var unhanded = consume versions
        if lanes[0].hand({ $0.add([], notifications: [], position: position, freeing: &unhanded) }) { startPasses(on: lanes[0]) }
    }

    /// The feed started over at `position`: every followed view model is
    /// built anew and sent as of `position`, through its user's lane, after
    /// what the lane has waiting.
    package func publishEveryFollowedTopic(at position: Int64) {
        for lane in lanes {
            hand(to: lane) { inbox in
                inbox.everyFollowedTopic = true
                inbox.position = position
            }
        }
    }

    /// Hands topics to build again, with no change of their own, to their
    /// users' lanes: they go out in order with the lanes' changes.
    package func rebuild(_ changes: Set<TopicChange>) {
        var work = [Set<TopicChange>](repeating: [], count: lanes.count)
        for change in changes { work[lane(of: change.user).index].insert(change) }
        for (lane, changes) in zip(lanes, work) where !changes.isEmpty { hand(to: lane) { $0.rebuilds.formUnion(changes) } }
    }

    /// Every followed view model anew, for when their date texts change at
    /// midnight: calls before a lane's next pass come to one.
    package func republishAll(unlessSameAs before: [ViewKey: SharedBytes] = [:]) {
        for lane in lanes {
            hand(to: lane) { inbox in
                inbox.rebuildsEveryFollowedTopic = true
                inbox.rebuiltUnlessSameAs.merge(before) { _, newer in newer }
            }
        }
    }

    /// Hands topics of `lane`'s users to build again once `seconds` have
    /// passed: a retry after a failed build.
    func rebuild(_ changes: Set<TopicChange>, on lane: Lane, after seconds: Double) {
        lane.loop.after(seconds: seconds) { [self] in hand(to: lane) { $0.rebuilds.formUnion(changes) } }
    }

    /// Adds to what waits in `lane`'s inbox, and starts its passes unless they are going.
    private func hand(to lane: Lane, _ update: (inout LaneInbox) -> Void) {
        if lane.hand({ update(&$0); return true }) { startPasses(on: lane) }
    }

    /// Passes on the lane's loop until nothing waits. A pass that reads the
    /// database waits for it off the loop, and the loop serves its
    /// connections meanwhile; the next pass starts after it.
    private func startPasses(on lane: Lane) {
        // The task is made by a job of the loop, so that its first pass runs
        // after the work the feed queues there meanwhile: the answers to the
        // writes of the very commit the pass publishes wait for no pass.
        lane.loop.execute { [self] in
            Task(executorPreference: lane.loop) { [self] in
                while let work = lane.takeWork() { await publish(work, on: lane) }
            }
        }
    }

    /// One pass over what `lane`'s inbox held.
    private func publish(_ work: LaneInbox, on lane: Lane) async {
        if work.changes.isEmpty && work.notifications.isEmpty && !work.everyFollowedTopic {
            await publish(on: lane, work.rebuilds, notifications: [], everyFollowedTopic: work.rebuildsEveryFollowedTopic,
                          unlessSameAs: work.rebuiltUnlessSameAs)
        } else {
            // Built in this pass, a rebuilt topic shows what a changed one does.
            await publish(on: lane, work.changes.union(work.rebuilds), notifications: work.notifications, position: work.position,
                          everyFollowedTopic: work.everyFollowedTopic || work.rebuildsEveryFollowedTopic)
        }
    }
}
