import Synchronization
import TailorDomain
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews
import TailorWire

/// Publishing: a lane's pass, which builds each followed view model once and
/// gives its event to every stream that follows it.
extension EventStreams {
    /// The view cache and the kept chats have followed the feed up to
    /// `position`: every view model built from now on shows its changes. Called
    /// in position order, before the changes at `position` are published.
    package func noteApplied(_ position: Int64) {
        applied.store(position, ordering: .releasing)
    }

    /// A lane's pass: new events for the followed topics `changes` touched, and
    /// the notifications for streams not showing the chat a message arrived in,
    /// with the feed position of the changes. Rebuilds (after a failure, at
    /// midnight) have no position of their own and take the latest their lane
    /// published. `everyFollowedTopic`: every topic the lane's streams follow
    /// changed too (the feed started over). A view model that fails to build
    /// is not sent; it is built again later. Runs on the lane's loop.
    func publish(on lane: Lane, _ changes: Set<TopicChange>, notifications: [Notification], position: Int64? = nil,
                 everyFollowedTopic: Bool = false, unlessSameAs before: [ViewKey: SharedBytes] = [:]) async {
        let (followed, bases) = lane.with { state -> (Set<ViewKey>, [ViewKey: Lane.PatchBase?]) in
            var keys = Set<ViewKey>()
            var bases: [ViewKey: Lane.PatchBase?] = [:]
            for change in everyFollowedTopic ? changes.union(state.subscribers.followedChanges) : changes {
                state.append(.change(id: position ?? state.published, change))
                for topic in state.subscribers.followedTopics(of: change.user) where change.touches(topic) {
                    let key = ViewKey(user: change.user, topic: topic)
                    keys.insert(key)
                    if state.subscribers.hasPatchFollowers(key) { bases[key] = .some(state.patchBases[key]) }
                }
            }
            return (keys, bases)
        }
        // Built between two visits to the state: a read of the database waits
        // off the loop, which serves its connections meanwhile.
        var built: [BuiltTopic] = []
        var failed: [(ViewKey, any Error)] = []
        let keys = Array(followed)
        for (key, build) in zip(keys, await views.representations(for: keys, withLayout: Set(bases.keys))) {
            switch build {
            case .built(let representation, let layout):
                built.append(BuiltTopic(key: key, json: representation.identity, layout: layout, base: bases[key] ?? nil))
            case .notVisible:
                built.append(BuiltTopic(key: key, json: json(for: key, nil), layout: nil, base: nil))
            case .failed(let error):
                failed.append((key, error))
            }
        }
        noteBuilds(on: lane, built: built.map(\.key), failed: failed)
        var notificationsMade = 0
        let deliveries = lane.with { state -> DeliveryBatches in
            if let position { state.published = max(state.published, position) }
            var deliveries = DeliveryBatches()
            // Notifications first: each has its message's position, at most the
            // pass's, which the view models have, and ids must not go back
            // along a stream.
            for notification in notifications {
                state.append(.notification(notification))
                let chatTopic = Topic.chat(id: notification.chatID, page: .latest)
                var event: StreamEvent?
                for subscriber in state.subscribers.streams(of: notification.recipient) where !subscriber.topics.contains(chatTopic) {
                    let made = event ?? notification.event
                    event = made
                    if subscriber.pushNotification(made) { deliveries.add(subscriber) }
                }
                if event != nil { notificationsMade += 1 }
            }
            for topic in built {
                // Built again with no change of its own, to the bytes its streams have: nothing to send.
                if position == nil, let earlier = before[topic.key], earlier.hasSameBytes(as: topic.json) { continue }
                // The version its patch followers have already (a stream that
                // subscribed while the lane built it): nothing to send.
                if topic.layout != nil, let current = state.patchBases[topic.key], current.document.json.hasSameBytes(as: topic.json) {
                    continue
                }
                let update = topic.update(id: position ?? state.published, isRebuild: position == nil, keeping: &state)
                for subscriber in state.subscribers.followers(of: topic.key) {
                    if subscriber.push(update, for: topic.key.topic) { deliveries.add(subscriber) }
                }
            }
            return deliveries
        }
        // A notification no stream here took made no event.
        eventsMade.add(built.count + notificationsMade, ordering: .relaxed)
        deliveries.start()
        if memory.total > memory.budgetPerUser {
            await endLargestHolders(on: lane, users: Set(built.map(\.key.user) + notifications.map(\.recipient)))
        }
    }

    /// A view model built for a pass, with what its patch needs.
    private struct BuiltTopic {
        let key: ViewKey
        let json: SharedBytes
        /// Present when some stream takes the topic's patches.
        let layout: JSONLayout?
        /// The version published before, when one is kept.
        let base: Lane.PatchBase?
        /// The patch from `base` as an event's data, found before the state is
        /// visited again; nil when it would not be smaller than the whole view model.
        let patchJSON: [UInt8]?

        init(key: ViewKey, json: SharedBytes, layout: JSONLayout?, base: Lane.PatchBase?) {
            self.key = key
            self.json = json
            self.layout = layout
            self.base = base
            guard let layout, let base,
                  let operations = JSONPatch.operations(from: base.document, to: JSONPatch.Version(json: json, layout: layout), limit: json.count)
            else {
                patchJSON = nil
                return
            }
            let patch = PatchViewModel(base: base.eventID, operations: operations, topic: key.topic)
            let bytes = ViewModelEncoding.json(patch)
            patchJSON = bytes.count < json.count ? bytes : nil
        }

        /// The events for this topic's streams at `id`, keeping this version
        /// as the next patch's base.
        func update(id: Int64, isRebuild: Bool, keeping state: inout Lane.State) -> TopicUpdate {
            let whole = StreamEvent(id: id, name: key.topic.eventName, json: json)
            guard let layout else {
                state.patchBases[key] = nil
                return TopicUpdate(whole: whole, isRebuild: isRebuild)
            }
            let version = state.keepBase(JSONPatch.Version(json: json, layout: layout), for: key, eventID: id)
            guard let base, let patchJSON else { return TopicUpdate(whole: whole, version: version, isRebuild: isRebuild) }
            let patch = StreamEvent(id: id, name: key.topic.patchEventName, json: SharedBytes(patchJSON))
            return TopicUpdate(whole: whole, version: version, patch: patch, base: base.version, isRebuild: isRebuild)
        }
    }

    /// Past the memory budget of `users`' streams or of all of them, ends the
    /// streams that hold the most. They are the slow readers: a stream that
    /// reads holds its events only until its loop writes them. Each stream's
    /// holding is read, and the stream ended, on its own lane's loop.
    private func endLargestHolders(on lane: Lane, users: Set<Int>) async {
        let total = memory.total
        // Streams already ending count as freed: their bytes go when their loops close them.
        var ended: [Subscriber] = []
        var chosen = Set<ObjectIdentifier>()
        func end(among streams: [HeldStream], over limit: Int) {
            let candidates = streams.filter { !chosen.contains(ObjectIdentifier($0.subscriber)) }
            for index in StreamMemory.toEnd(candidates.map(\.holding), over: limit) {
                ended.append(candidates[index].subscriber)
                chosen.insert(ObjectIdentifier(candidates[index].subscriber))
            }
        }
        let usersStreams = lane.with { state in users.map { HeldStream.holdings(of: state.subscribers.streams(of: $0)) } }
        for streams in usersStreams { end(among: streams, over: memory.budgetPerUser) }
        // Past the budget of all: the largest holders of every lane.
        if total > memory.budget { end(among: await fromEveryLane { HeldStream.holdings(of: $0.subscribers.all) }, over: memory.budget) }
        guard !ended.isEmpty else { return }
        memory.noteEndedSlow(ended.count)
        failures.log("ended \(ended.count) slow event streams: their unsent events held \(total) bytes, "
            + "past the budget of \(memory.budget) in all or \(memory.budgetPerUser) per user")
        // Their memory is freed as their loops close them; the upkeep thread then
        // gives the heap's free space back to the system (the process grew, or
        // connections closed), off the loops.
        for subscriber in ended { self.lane(of: subscriber.user).later { _ in subscriber.end() } }
    }

    /// A stream and what it holds, read on its loop.
    private struct HeldStream: Sendable {
        let subscriber: Subscriber
        let holding: StreamMemory.Holding

        /// Those of `streams` not already ending.
        static func holdings(of streams: some Sequence<Subscriber>) -> [HeldStream] {
            streams.filter { !$0.isEnding }.map { HeldStream(subscriber: $0, holding: StreamMemory.Holding(user: $0.user, bytes: $0.heldBytes)) }
        }
    }

    /// Builds again, through their lanes and after a growing delay, the view
    /// models that failed to build; past `buildAttempts` the streams keep
    /// their last good view model until the next change (or reconnect)
    /// brings a new one. A view model built is no longer retried.
    private func noteBuilds(on lane: Lane, built: [ViewKey], failed: [(ViewKey, any Error)]) {
        let retries = lane.with { state -> [(ViewKey, attempt: Int)] in
            if !state.failedBuilds.isEmpty { for key in built { state.failedBuilds[key] = nil } }
            return failed.map { key, _ in
                let attempt = (state.failedBuilds[key] ?? 0) + 1
                state.failedBuilds[key] = attempt < Self.buildAttempts ? attempt : nil
                return (key, attempt)
            }
        }
        for ((key, attempt), (_, error)) in zip(retries, failed) {
            failures.log("the \(key.topic) view model of user \(key.user) failed to build (attempt \(attempt)): \(error)")
            guard attempt < Self.buildAttempts else {
                failures.log("gave up rebuilding the \(key.topic) view model of user \(key.user) after \(attempt) attempts")
                continue
            }
            let delay = Self.retryDelay * Double(1 << (attempt - 1))
            rebuild([TopicChange(key.topic, of: key.user)], on: lane, after: delay)
        }
    }

    /// A view model's bytes, or what a topic becomes when it is gone.
    func json(for key: ViewKey, _ representation: CachedRepresentation?) -> SharedBytes {
        if let representation {
            return representation.identity
        }
        switch key.topic {
        case .order(let id), .chat(let id, _): return SharedBytes(ViewModelEncoding.json(DeletedViewModel(id: String(id), deleted: true)))
        default: return SharedBytes("{}")
        }
    }
}
