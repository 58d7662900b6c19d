import Dispatch
import Logging
import Synchronization
import TailorDomain
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews

/// Every open event stream.
///
/// After each commit the handler hands over the topics it touched. The hub
/// rebuilds, once, each touched topic that somebody follows, makes its event's
/// bytes once, and gives the same bytes to every stream that follows it.
///
/// An event's id is the feed position of the change it shows, the same on
/// every server; the events one change makes on a stream share its id. A
/// user's events all come from one publisher lane, in feed order, so ids never
/// go back along a stream. A bounded log of recent changes lets a stream that
/// reconnects with Last-Event-ID get only what changed: every topic changed at
/// that position or later, since the connection may have ended between two
/// events of that position.
///
/// For topics that some stream takes as patches, the hub keeps the version it
/// published last, with its layout, and finds the next version's patch from
/// it, once for every such stream (`TopicUpdate`). A stream resumed or opened
/// anew starts from whole view models.
package final class EventStreams: Sendable {
    /// A message for a user, to show as the in-app banner.
    package struct Notification: Sendable {
        package let recipient: Int
        package let chatID: Int
        package let contact: String
        package let text: String
        /// The feed position of the message: its event's id on every server,
        /// whichever pass publishes it.
        package let position: Int64

        package init(recipient: Int, chatID: Int, contact: String, text: String, position: Int64) {
            self.recipient = recipient
            self.chatID = chatID
            self.contact = contact
            self.text = text
            self.position = position
        }
    }

    private enum LogEntry {
        case change(id: Int64, TopicChange)
        case notification(StreamEvent, recipient: Int, chatID: Int)

        var id: Int64 {
            switch self {
            case .change(let id, _): id
            case .notification(let event, _, _): event.id
            }
        }
    }

    /// The version of a view model that its next patch is found from.
    private struct PatchBase {
        let version: UInt64
        /// The id of the event that brought this version.
        let eventID: Int64
        let document: JSONPatch.Version
    }

    private struct State {
        /// The latest feed position each lane has published.
        var published: [Int64]
        /// For each view model some stream takes patches of, its latest version.
        var patchBases: [ViewKey: PatchBase] = [:]
        /// The latest version number given out (`nextVersion`).
        var lastVersion = TopicUpdate.unknown
        /// View models whose builds failed, with the attempts made so far.
        var failedBuilds: [ViewKey: Int] = [:]
        var subscribers = SubscriberIndex()
        /// Recent changes and notifications, at most `logCapacity`, each lane's in order.
        var log: [LogEntry] = []
        var logStart = 0
        /// Ids at or after this one are all in the log.
        var loggedSince: Int64
        var closed = false

        mutating func append(_ entry: LogEntry) {
            if log.count - logStart >= EventStreams.logCapacity {
                logStart += 1
                // The lanes' entries interleave: what left may be newer than what stays.
                loggedSince = max(loggedSince, log[logStart - 1].id + 1)
                if logStart > EventStreams.logCapacity {
                    log.removeFirst(logStart)
                    logStart = 0
                }
            }
            log.append(entry)
        }

        var entries: ArraySlice<LogEntry> { log[logStart...] }

        mutating func nextVersion() -> UInt64 {
            lastVersion += 1
            return lastVersion
        }

        /// Keeps `document` as `key`'s latest version when some stream takes
        /// its patches; returns the version (`unknown` when not kept).
        mutating func keepBase(_ document: JSONPatch.Version, for key: ViewKey, eventID: Int64) -> UInt64 {
            guard subscribers.hasPatchFollowers(key) else {
                patchBases[key] = nil
                return TopicUpdate.unknown
            }
            let version = nextVersion()
            patchBases[key] = PatchBase(version: version, eventID: eventID, document: document)
            return version
        }
    }

    /// Changes and notifications remembered for resuming streams.
    package static let logCapacity = 10_000

    private let views: ViewModelBuilder
    private let lanes: PublisherLanes
    /// The lanes' threads, by index (`PublisherLanes`).
    private let publishers: [PublisherLane]
    private let state: Mutex<State>
    private let failures: ThrottledLog
    package let memory: StreamMemory
    private let eventsMade = Atomic<Int>(0)
    /// The feed position the view cache and the kept chats have followed up to.
    private let applied: Atomic<Int64>
    /// Told of each stream that opens and closes, in order, for presence.
    private let watcher: @Sendable (_ user: Int, _ opened: Bool) -> Void

    /// A change whose view model failed to build is tried again this many
    /// times, after `retryDelay` and twice as long each time after that.
    package static let buildAttempts = 5
    package static let retryDelay = 0.05

    /// `position`: the feed's latest when the server starts; its changes are in
    /// every view model built from now on.
    package init(views: ViewModelBuilder, position: Int64, lanes: PublisherLanes, memory: StreamMemory, logger: Logger = Logger(label: "tailor.streams"),
                 watcher: @escaping @Sendable (_ user: Int, _ opened: Bool) -> Void = { _, _ in }) {
        self.views = views
        self.watcher = watcher
        self.lanes = lanes
        publishers = (0..<lanes.count).map { PublisherLane(index: $0) }
        state = Mutex(State(published: Array(repeating: position, count: lanes.count), loggedSince: position + 1))
        applied = Atomic(position)
        failures = ThrottledLog(logger: logger)
        self.memory = memory
    }

    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Topics some stream follows, each user's counted apart.
    package var followedTopicCount: Int { state.withLock { $0.subscribers.followedKeyCount } }

    /// Events made for changes since the start (each once, however many streams it went to).
    package var eventsPublished: Int { eventsMade.load(ordering: .relaxed) }

    /// Events queued and not yet written, over all streams.
    package var queuedEventCount: Int {
        state.withLock { $0.subscribers.all }.reduce(0) { $0 + $1.queuedCount }
    }

    // MARK: - Streams

    /// Subscribes one stream and sets it going on its loop, where it is
    /// written until its peer leaves, it falls too far behind, or the server
    /// shuts down. Returns once it is going: the stream needs no task.
    /// `session`: the token hash of the browser session the stream was opened
    /// with; the stream ends when that session does.
    package func serve(user: Int, session: [UInt8]? = nil, topics: [Topic], takesPatches: Bool = false, lastEventID: Int64?,
               on stream: ResponseStream) async {
        let subscriber = Subscriber(user: user, session: session, topics: topics, takesPatches: takesPatches, stream: stream, memory: memory) {
            [self] in unsubscribe($0)
        }
        guard await subscribe(subscriber, lastEventID: lastEventID) else {
            subscriber.end()
            return
        }
        stream.loop.execute { subscriber.start() }
    }

    /// Registers `subscriber` and queues its first events: every topic's current
    /// view model, or after a resume only what changed since `lastEventID`.
    private func subscribe(_ subscriber: Subscriber, lastEventID: Int64?) async -> Bool {
        // The view models built below show every change up to here: an event
        // of one of those published later would only repeat them.
        let shown = applied.load(ordering: .acquiring)
        let resendTopics = state.withLock { state -> [Topic]? in
            guard !state.closed else { return nil }
            state.subscribers.insert(subscriber)
            // Under the lock, as its closing is: the watcher hears them in order.
            watcher(subscriber.user, true)
            guard let last = lastEventID, last >= state.loggedSince, last <= state.published[lanes.lane(of: subscriber.user)] else {
                return subscriber.topics
            }
            var changed: [Topic] = []
            for entry in state.entries where entry.id >= last {
                switch entry {
                case .change(_, let change):
                    guard change.user == subscriber.user else { continue }
                    changed += subscriber.topics.filter { change.touches($0) && !changed.contains($0) }
                case .notification(let event, let recipient, let chatID):
                    if event.id > last, recipient == subscriber.user && !subscriber.topics.contains(.chat(id: chatID, page: .latest)) {
                        _ = subscriber.pushNotification(event)
                    }
                }
            }
            return changed
        }
        guard let resendTopics else {
            // Closed for shutdown: it was never indexed.
            return false
        }
        for topic in resendTopics {
            let key = ViewKey(user: subscriber.user, topic: topic)
            let bytes: SharedBytes
            var layout: JSONLayout?
            do {
                if subscriber.takesPatches {
                    let encoded = try await views.encodedWithLayout(for: key)
                    bytes = json(for: key, encoded?.representation)
                    layout = encoded?.layout
                } else {
                    bytes = json(for: key, try await views.representation(for: key))
                }
            } catch {
                // Without its first view model the stream would be wrong, not
                // just late: it ends, and the client's reconnect tries again.
                failures.log("a stream of user \(subscriber.user) ended: its \(topic) view model failed to build: \(error)")
                return false
            }
            // The id is the position the user's lane has published, read and
            // queued under the lock: every later event of the lane has a larger
            // one. For patches, a view model that is the version published last
            // keeps that version's id, which the next patch names as its base.
            state.withLock { state in
                var id = state.published[lanes.lane(of: subscriber.user)]
                var version = TopicUpdate.unknown
                if let layout {
                    // Patches go on from the version published last when this is
                    // the same; else from this one, when none is kept yet.
                    if let base = state.patchBases[key] {
                        if base.document.json.hasSameBytes(as: bytes) {
                            (id, version) = (base.eventID, base.version)
                        }
                    } else {
                        version = state.keepBase(JSONPatch.Version(json: bytes, layout: layout), for: key, eventID: id)
                    }
                }
                subscriber.pushInitial(StreamEvent(id: id, name: topic.eventName, json: bytes), version: version, showing: shown, for: topic)
            }
        }
        return true
    }

    /// Takes an ended stream out of every index.
    private func unsubscribe(_ subscriber: Subscriber) {
        state.withLock { state in
            guard state.subscribers.remove(subscriber) else { return }
            watcher(subscriber.user, false)
            for topic in subscriber.topics where subscriber.takesPatches {
                let key = ViewKey(user: subscriber.user, topic: topic)
                if !state.subscribers.hasPatchFollowers(key) { state.patchBases[key] = nil }
            }
        }
        // No publish finds it now, so nothing is queued on it after this.
        subscriber.releaseAll()
    }

    // MARK: - Changes

    /// The view cache and the kept chats have followed the feed up to
    /// `position`: every view model built from now on shows its changes. Called
    /// in position order, before the changes at `position` are published.
    package func noteApplied(_ position: Int64) {
        applied.store(position, ordering: .releasing)
    }

    /// Hands the changes at `position` and their notifications to their users'
    /// lanes, and cached versions to free after a pass. The versions go whole
    /// to the first lane with work and no reference to them stays with the
    /// caller: whoever lets the last one go frees them, and that must not be
    /// the thread that applies the feed, which every commit waits for.
    package func handOver(_ changes: Set<TopicChange>, notifications: [Notification], position: Int64,
                          freeing toFree: consuming [CachedRepresentation] = []) {
        var work = [(changes: Set<TopicChange>, notifications: [Notification])](
            repeating: (Set(minimumCapacity: changes.count), []), count: publishers.count)
        for change in changes { work[lanes.lane(of: change.user)].changes.insert(change) }
        for notification in notifications { work[lanes.lane(of: notification.recipient)].notifications.append(notification) }
        var unhanded: [CachedRepresentation]? = consume toFree
        for (lane, work) in zip(publishers, work) where !work.changes.isEmpty || !work.notifications.isEmpty {
            lane.publish(work.changes, notifications: work.notifications, position: position, freeing: unhanded.take() ?? [], to: self)
        }
    }

    /// Hands topics to build again, with no change of their own, to their
    /// users' lanes: they go out in order with the lanes' changes.
    package func rebuild(_ changes: Set<TopicChange>) {
        var work = [Set<TopicChange>](repeating: [], count: publishers.count)
        for change in changes { work[lanes.lane(of: change.user)].insert(change) }
        for (lane, changes) in zip(publishers, work) where !changes.isEmpty { lane.rebuild(changes, to: self) }
    }

    /// A lane's pass: new events for the followed topics `changes` touched, and
    /// the notifications for streams not showing the chat a message arrived in,
    /// with the feed position of the changes. Rebuilds (after a failure, at
    /// midnight) have no position of their own and take the latest their lane
    /// published. A view model that fails to build is not sent; it is built
    /// again later.
    package func publish(_ changes: Set<TopicChange>, notifications: [Notification], position: Int64? = nil) {
        let (keys, bases) = state.withLock { state -> (Set<ViewKey>, [ViewKey: PatchBase?]) in
            var keys = Set<ViewKey>()
            var bases: [ViewKey: PatchBase?] = [:]
            for change in changes {
                state.append(.change(id: position ?? state.published[lanes.lane(of: change.user)], change))
                for topic in state.subscribers.followedTopics(of: change.user) where change.touches(topic) {
                    let key = ViewKey(user: change.user, topic: topic)
                    keys.insert(key)
                    if state.subscribers.hasPatchFollowers(key) { bases[key] = .some(state.patchBases[key]) }
                }
            }
            return (keys, bases)
        }
        // Built outside the lock: readers, encoding and patches take time.
        var built: [BuiltTopic] = []
        var failed: [(ViewKey, any Error)] = []
        for (key, build) in zip(keys, views.representations(for: Array(keys), withLayout: Set(bases.keys))) {
            switch build {
            case .built(let representation, let layout):
                built.append(BuiltTopic(key: key, json: representation.identity, layout: layout, base: bases[key] ?? nil))
            case .notVisible:
                built.append(BuiltTopic(key: key, json: json(for: key, nil), layout: nil, base: nil))
            case .failed(let error):
                failed.append((key, error))
            }
        }
        noteBuilds(built: built.map(\.key), failed: failed)
        let deliveries = state.withLock { state -> DeliveryBatches in
            if let position {
                for user in changes.map(\.user) + notifications.map(\.recipient) {
                    let lane = lanes.lane(of: user)
                    state.published[lane] = max(state.published[lane], position)
                }
            }
            var deliveries = DeliveryBatches()
            // Notifications first: each has its message's position, at most the
            // pass's, which the view models have; a stream's loop may take
            // what is queued between two pushes, and ids must not go back.
            for notification in notifications {
                let event = StreamEvent(id: notification.position, name: "notification", json: SharedBytes(ViewModelEncoding.json(NotificationViewModel(chatID: notification.chatID, contact: notification.contact, text: notification.text))))
                state.append(.notification(event, recipient: notification.recipient, chatID: notification.chatID))
                let chatTopic = Topic.chat(id: notification.chatID, page: .latest)
                for subscriber in state.subscribers.streams(of: notification.recipient) where !subscriber.topics.contains(chatTopic) {
                    if subscriber.pushNotification(event) { deliveries.add(subscriber) }
                }
            }
            for topic in built {
                // The version its patch followers have already (a stream that
                // subscribed while the lane built it): nothing to send.
                if topic.layout != nil, let current = state.patchBases[topic.key], current.document.json.hasSameBytes(as: topic.json) {
                    continue
                }
                let update = topic.update(id: position ?? state.published[lanes.lane(of: topic.key.user)], isRebuild: position == nil, keeping: &state)
                for subscriber in state.subscribers.followers(of: topic.key) {
                    if subscriber.push(update, for: topic.key.topic) { deliveries.add(subscriber) }
                }
            }
            return deliveries
        }
        eventsMade.add(built.count + notifications.count, ordering: .relaxed)
        deliveries.start()
        if memory.total > memory.budgetPerUser {
            endLargestHolders(users: Set(built.map(\.key.user) + notifications.map(\.recipient)))
        }
    }

    /// A view model built for a pass, with what its patch needs.
    private struct BuiltTopic {
        let key: ViewKey
        let json: SharedBytes
        /// Present when some stream takes the topic's patches.
        let layout: JSONLayout?
        /// The version published before, when one is kept.
        let base: PatchBase?
        /// The patch from `base` as an event's data, found outside the lock;
        /// nil when it would not be smaller than the whole view model.
        let patchJSON: [UInt8]?

        init(key: ViewKey, json: SharedBytes, layout: JSONLayout?, base: PatchBase?) {
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
        func update(id: Int64, isRebuild: Bool, keeping state: inout State) -> TopicUpdate {
            let whole = StreamEvent(id: id, name: key.topic.eventName, json: json)
            guard let layout else {
                state.patchBases[key] = nil
                return TopicUpdate(whole: whole, isRebuild: isRebuild)
            }
            let version = state.keepBase(JSONPatch.Version(json: json, layout: layout), for: key, eventID: id)
            guard let base, let patchJSON else { return TopicUpdate(whole: whole, version: version, isRebuild: isRebuild) }
            let patch = StreamEvent(id: id, name: key.topic.eventName + ".patch", json: SharedBytes(patchJSON))
            return TopicUpdate(whole: whole, version: version, patch: patch, base: base.version, isRebuild: isRebuild)
        }
    }

    /// Past the memory budget of `users`' streams or of all of them, ends the
    /// streams that hold the most. They are the slow readers: a stream that
    /// reads holds its events only until its loop writes them.
    private func endLargestHolders(users: Set<Int>) {
        let total = memory.total
        let ended = state.withLock { state -> [Subscriber] in
            // Streams already ending count as freed: their bytes go when their loops close them.
            var ended: [Subscriber] = []
            var chosen = Set<ObjectIdentifier>()
            func end(among streams: [Subscriber], over limit: Int) {
                let candidates = streams.filter { !$0.isEnding && !chosen.contains(ObjectIdentifier($0)) }
                let holdings = candidates.map { StreamMemory.Holding(user: $0.user, bytes: $0.heldBytes) }
                for index in StreamMemory.toEnd(holdings, over: limit) {
                    ended.append(candidates[index])
                    chosen.insert(ObjectIdentifier(candidates[index]))
                }
            }
            for user in users { end(among: Array(state.subscribers.streams(of: user)), over: memory.budgetPerUser) }
            if total > memory.budget { end(among: state.subscribers.all, over: memory.budget) }
            return ended
        }
        guard !ended.isEmpty else { return }
        memory.noteEndedSlow(ended.count)
        failures.log("ended \(ended.count) slow event streams: their unsent events held \(total) bytes, "
            + "past the budget of \(memory.budget) in all or \(memory.budgetPerUser) per user")
        for subscriber in ended { subscriber.end() }
        // Their memory is freed as their loops close them; then the heap's free space
        // goes back to the system rather than stay with the process.
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { ProcessSetup.releaseFreeMemory() }
    }

    /// Builds again, through their lanes and after a growing delay, the view
    /// models that failed to build; past `buildAttempts` the streams keep
    /// their last good view model until the next change (or reconnect)
    /// brings a new one. A view model built is no longer retried.
    private func noteBuilds(built: [ViewKey], failed: [(ViewKey, any Error)]) {
        let retries = state.withLock { state -> [(ViewKey, attempt: Int)] in
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
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
                rebuild([TopicChange(key.topic, of: key.user)])
            }
        }
    }

    /// A view model's bytes, or what a topic becomes when it is gone.
    private func json(for key: ViewKey, _ representation: CachedRepresentation?) -> SharedBytes {
        if let representation {
            return representation.identity
        }
        switch key.topic {
        case .order(let id), .chat(let id, _): return SharedBytes(ViewModelEncoding.json(DeletedViewModel(id: String(id), deleted: true)))
        default: return SharedBytes("{}")
        }
    }

    // MARK: - Upkeep

    /// Ends the streams opened with the session whose token hash this is: it
    /// was signed out, revoked, or ended by a new password.
    package func endStreams(ofSession tokenHash: [UInt8]) {
        let ended = state.withLock { state in state.subscribers.all.filter { $0.session == tokenHash } }
        for subscriber in ended { subscriber.end() }
    }

    /// The users with a stream open here.
    package var users: Set<Int> {
        state.withLock { state in Set(state.subscribers.all.map(\.user)) }
    }

    /// Ends every stream of `user`: their account was disabled.
    package func endStreams(ofUser user: Int) {
        let ended = state.withLock { state in Array(state.subscribers.streams(of: user)) }
        for subscriber in ended { subscriber.end() }
    }

    /// Whether one of `user`'s streams shows the chat's latest messages: they
    /// see a message there as it comes, and need no push of it.
    package func isShowing(chat: Int, to user: Int) -> Bool {
        state.withLock { state in state.subscribers.followedTopics(of: user).contains(.chat(id: chat, page: .latest)) }
    }

    /// Every followed view model anew, for when their date texts change at
    /// midnight, through the lanes.
    package func republishAll() {
        rebuild(followedTopics())
    }

    /// Every topic some stream follows, as a change of it.
    package func followedTopics() -> Set<TopicChange> {
        state.withLock { state in
            Set(state.subscribers.all.flatMap { subscriber in
                subscriber.topics.map { TopicChange($0, of: subscriber.user) }
            })
        }
    }

    /// A comment on every stream, so that proxies keep it open and a vanished
    /// peer is noticed by the write.
    package func heartbeat() {
        let all = state.withLock { $0.subscribers.all }
        var deliveries = DeliveryBatches()
        for subscriber in all where subscriber.heartbeat() { deliveries.add(subscriber) }
        deliveries.start()
    }

    /// Ends every stream and accepts no new one (shutdown).
    package func closeAll() {
        let all = state.withLock { state -> [Subscriber] in
            state.closed = true
            return state.subscribers.all
        }
        for subscriber in all { subscriber.end() }
    }
}
