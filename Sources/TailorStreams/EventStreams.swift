import Logging
import Synchronization
import TailorDomain
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews
import TailorWire

/// Every open event stream.
///
/// After each commit the handler hands over the topics it touched. The hub
/// rebuilds, once, each touched topic that somebody follows, makes its event's
/// bytes once, and gives the same bytes to every stream that follows it.
///
/// An event's id is the feed position of the change it shows, the same on
/// every server; the events one change makes on a stream share its id. A
/// user's events all come from one lane, in feed order, so ids never
/// go back along a stream. A bounded log of recent changes lets a stream that
/// reconnects with Last-Event-ID get only what changed: every topic changed at
/// that position or later, since the connection may have ended between two
/// events of that position.
///
/// For topics that some stream takes as patches, the hub keeps the version it
/// published last, with its layout, and finds the next version's patch from
/// it, once for every such stream (`TopicUpdate`). A stream resumed or opened
/// anew starts from whole view models.
///
/// What the hub keeps is kept per lane, on the lane's loop (`Lane`): a
/// user's streams, changes and notifications all belong to one lane, so a
/// call about one user is a job on one loop, and only upkeep and shutdown
/// visit every lane. The hub itself only routes a user to their lane; what
/// other threads share with a lane is its inbox.
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

        /// Its event, as a stream that does not show the chat gets it.
        var event: StreamEvent {
            StreamEvent(id: position, name: StreamTopic.notificationEventName,
                        json: SharedBytes(ViewModelEncoding.json(NotificationViewModel(chatID: chatID, contact: contact, text: text))))
        }
    }

    /// Changes and notifications each lane remembers for resuming its streams.
    package static let logCapacity = 10_000

    let views: ViewModelBuilder
    /// One on each loop; a user's is `lane(of:)`.
    let lanes: [Lane]
    let failures: ThrottledLog
    package let memory: StreamMemory
    let eventsMade = Atomic<Int>(0)
    /// The feed position the view cache and the kept chats have followed up to.
    let applied: Atomic<Int64>
    /// Each stream that opens and closes, in order, for presence to follow.
    package let streamChanges: AsyncStream<StreamChange>
    let streamChangesIn: AsyncStream<StreamChange>.Continuation

    /// A change whose view model failed to build is tried again this many
    /// times, after `retryDelay` and twice as long each time after that.
    package static let buildAttempts = 5
    package static let retryDelay = 0.05

    /// `position`: the feed's latest when the server starts; its changes are in
    /// every view model built from now on.
    /// One lane on each of `loops`.
    /// The users with a stream here (`ServedUsers`), whose entries the feed applies.
    package let served: ServedUsers
    /// The notifications of `user`'s messages after one position through
    /// another, read back from the database: the feed passed over that
    /// user's entries while they were not served here, and the lanes logged
    /// none of them. Nil where the feed passes over nothing (SQLite).
    package typealias MissedNotifications = @Sendable (_ user: Int, _ after: Int64, _ through: Int64) async throws -> [Notification]
    let missedNotifications: MissedNotifications?

    package init(views: ViewModelBuilder, position: Int64, loops: [EventLoop], memory: StreamMemory, served: ServedUsers = ServedUsers(),
                 missedNotifications: MissedNotifications? = nil, logger: Logger = Logger(label: "tailor.streams")) {
        precondition(!loops.isEmpty, "streams need a loop")
        self.views = views
        self.served = served
        self.missedNotifications = missedNotifications
        (streamChanges, streamChangesIn) = AsyncStream.makeStream()
        lanes = loops.indices.map { Lane(index: $0, loop: loops[$0], state: Lane.State(published: position, loggedSince: position + 1)) }
        applied = Atomic(position)
        failures = ThrottledLog(logger: logger)
        self.memory = memory
    }

    /// The lane of `user`'s streams, changes and notifications: always the
    /// same, so all of a stream's events come from one lane, which publishes
    /// them in feed order, and the ids along a stream never go back.
    func lane(of user: Int) -> Lane {
        lanes[user % lanes.count]
    }

    /// What `body` finds in each lane's state, one lane's loop at a time.
    func fromEveryLane<Result: Sendable>(_ body: @escaping @Sendable (inout Lane.State) -> [Result]) async -> [Result] {
        var found: [Result] = []
        for lane in lanes { found += await lane.ask(body) }
        return found
    }

    /// The same, for a thread that may block and is not a loop's.
    func fromEveryLaneWaiting<Result: Sendable>(_ body: @escaping @Sendable (inout Lane.State) -> [Result]) -> [Result] {
        lanes.flatMap { $0.askAndWait(body) }
    }

    package var subscriberCount: Int { lanes.reduce(0) { $0 + $1.streamCount.load(ordering: .relaxed) } }

    /// Topics some stream follows, each user's counted apart.
    package var followedTopicCount: Int { lanes.reduce(0) { $0 + $1.followedKeyCount.load(ordering: .relaxed) } }

    /// Events made for changes since the start (each once, however many streams it went to).
    package var eventsPublished: Int { eventsMade.load(ordering: .relaxed) }

    /// Events queued and not yet written, over all streams.
    /// For a thread that may block and is not a loop's.
    package func queuedEventCountWaiting() -> Int {
        fromEveryLaneWaiting { state in [state.subscribers.all.reduce(0) { $0 + $1.queuedCount }] }.reduce(0, +)
    }

    // MARK: - Streams

    /// Notifications of messages committed before the server started, read
    /// back from the database in position order, all at or before the
    /// position the streams started at: logged first, so that a stream that
    /// resumes from before the start still gets those after its last event.
    /// Call before any stream opens, from a thread that may block.
    package func logEarlier(_ notifications: [Notification]) {
        var byLane = [[Notification]](repeating: [], count: lanes.count)
        for notification in notifications { byLane[lane(of: notification.recipient).index].append(notification) }
        for (lane, held) in zip(lanes, byLane) where !held.isEmpty {
            lane.askAndWait { state in
                precondition(state.log.isEmpty, "notifications from before the start logged after the log began")
                for notification in held { state.append(.notification(notification)) }
            }
        }
    }

    /// Subscribes one stream and sets it going on its user's lane's loop,
    /// where it is written until its peer leaves, it falls too far behind, or
    /// the server shuts down. Returns once it is going: the stream needs no
    /// task. Call on the stream's loop, before anything is written to it.
    /// `session`: the token hash of the browser session the stream was opened
    /// with; the stream ends when that session does.
    package func serve(user: Int, session: [UInt8]? = nil, topics: [Topic], takesPatches: Bool = false, lastEventID: Int64?,
               on stream: ResponseStream) async {
        // The stream moves to the loop of its user's lane, which makes its
        // events: the lane queues them and writes them with no hop to
        // another thread, and the stream's queue is that one thread's.
        let loop = lane(of: user).loop
        let detached = stream.loop === loop ? nil : stream.detach()
        await withTaskExecutorPreference(loop) {
            let moved: ResponseStream
            do {
                moved = try detached.map { try ResponseStream.adopt($0, on: loop) } ?? stream
            } catch {
                failures.log("a stream of user \(user) ended: its loop could not take it: \(error)")
                return
            }
            let subscriber = Subscriber(user: user, session: session, topics: topics, takesPatches: takesPatches, stream: moved, memory: memory) {
                [self] in unsubscribe($0)
            }
            guard await subscribe(subscriber, lastEventID: lastEventID) else {
                subscriber.end()
                return
            }
            subscriber.start()
        }
    }

    /// Registers `subscriber` and queues its first events: every topic's current
    /// view model, or after a resume only what changed since `lastEventID`.
    private func subscribe(_ subscriber: Subscriber, lastEventID: Int64?) async -> Bool {
        let lane = lane(of: subscriber.user)
        // Served before anything is read for the stream: the feed applies
        // every entry of the user from `since` on, and the lanes log them.
        let since = Int64(served.opened(subscriber.user))
        let missed = await notifications(missedBy: subscriber.user, after: lastEventID, through: since)
        let resendTopics = await lane.ask { [streamChangesIn] state -> [Topic]? in
            guard !state.closed else { return nil }
            // Before the log is read: the work that waited for want of a stream is in it.
            if let quiet = lane.follow(subscriber.user) { state.logQuietWork(quiet) }
            state.subscribers.insert(subscriber)
            // On the lane's loop, as its closing is: they come in order.
            streamChangesIn.yield(StreamChange(user: subscriber.user, opened: true))
            // An id past what this server applied is from the future (another
            // server ahead): every view model anew. The lanes publish only what
            // touches users served here, so `applied` may be past what they published.
            guard let last = lastEventID, last <= max(state.published, self.applied.load(ordering: .acquiring)) else { return subscriber.topics }
            for notification in missed where !subscriber.topics.contains(.chat(id: notification.chatID, page: .latest)) {
                _ = subscriber.pushNotification(notification.event)
            }
            // From before the log (a restart since, or another server's id
            // from long ago) or from before the user was served here (their
            // changes were passed over): every view model anew, and the
            // notifications held, those read back first.
            let changesKnown = last >= state.loggedSince && last >= since
            let notifiedAfter = max(last, since)
            var changed: [Topic] = []
            for entry in state.entries where entry.id >= last {
                switch entry {
                case .change(_, let change):
                    guard changesKnown, change.user == subscriber.user else { continue }
                    changed += subscriber.topics.filter { change.touches($0) && !changed.contains($0) }
                case .notification(let notification):
                    if notification.position > notifiedAfter, notification.recipient == subscriber.user,
                       !subscriber.topics.contains(.chat(id: notification.chatID, page: .latest)) {
                        _ = subscriber.pushNotification(notification.event)
                    }
                }
            }
            return changesKnown ? changed : subscriber.topics
        }
        guard let resendTopics else {
            // Closed for shutdown: it was never indexed.
            served.closed(subscriber.user)
            return false
        }
        // Read once the stream is indexed and the lane has logged what waited
        // for it, before the view models are built: they show every change up
        // to here, and every change the lane published before this (each is
        // applied before it is handed over); an event of one of those
        // published later would only repeat them.
        let shown = applied.load(ordering: .acquiring)
        // Each topic's first view model, built before any is queued.
        var firsts: [(topic: Topic, bytes: SharedBytes, layout: JSONLayout?)] = []
        for topic in resendTopics {
            let key = ViewKey(user: subscriber.user, topic: topic)
            do {
                if subscriber.takesPatches {
                    let encoded = try await views.encodedWithLayout(for: key)
                    firsts.append((topic, json(for: key, encoded?.representation), encoded?.layout))
                } else {
                    firsts.append((topic, json(for: key, try await views.representation(for: key)), nil))
                }
            } catch {
                // Without its first view model the stream would be wrong, not
                // just late: it ends, and the client's reconnect tries again.
                failures.log("a stream of user \(subscriber.user) ended: its \(topic) view model failed to build: \(error)")
                return false
            }
        }
        // The id is the position the user's lane has published, read and
        // queued on the lane's loop, in one visit for every topic: every later
        // event of the lane has a larger one. For patches, a view model that
        // is the version published last keeps that version's id, which the
        // next patch names as its base.
        await lane.ask { [firsts] state in
            for (topic, bytes, layout) in firsts {
                let key = ViewKey(user: subscriber.user, topic: topic)
                var id = state.published
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

    /// The notifications of `user`'s messages after `last` through `since`,
    /// which the lanes did not log (`MissedNotifications`); none when the
    /// stream does not resume from before `since`, or they cannot be read.
    private func notifications(missedBy user: Int, after last: Int64?, through since: Int64) async -> [Notification] {
        guard let last, last < since, let missedNotifications else { return [] }
        do {
            return try await missedNotifications(user, last, since)
        } catch {
            failures.log("a stream of user \(user) resumed without its notifications from \(last) to \(since): they could not be read: \(error)")
            return []
        }
    }

    /// Takes an ended stream out of every index, then closes its socket, in
    /// a job of its lane's loop (it may end while the lane visits its
    /// state): once the server counts the connection closed, the stream is gone.
    private func unsubscribe(_ subscriber: Subscriber) {
        let lane = lane(of: subscriber.user)
        lane.loop.execute { [streamChangesIn] in
            lane.with { state in
                guard state.subscribers.remove(subscriber) else { return }
                lane.unfollow(subscriber.user)
                self.served.closed(subscriber.user)
                streamChangesIn.yield(StreamChange(user: subscriber.user, opened: false))
                for topic in subscriber.topics where subscriber.takesPatches {
                    let key = ViewKey(user: subscriber.user, topic: topic)
                    if !state.subscribers.hasPatchFollowers(key) { state.patchBases[key] = nil }
                }
            }
            // No publish finds it now, so nothing is queued on it after this.
            subscriber.releaseAll()
            subscriber.stream.close()
        }
    }
}
