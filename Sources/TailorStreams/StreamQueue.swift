import TailorDomain
import TailorLoop

/// What one event stream has to send, and when it may write, as a state
/// machine without I/O: each transition changes the queue and says what its
/// caller must do (queue a delivery on the loop, write, close).
///
/// A stream has no task of its own: its lane's loop writes it, delivering an
/// idle stream's new events once the pass that queued them leaves the lane's
/// state (`DeliveryBatches`), so that a fan-out to thousands of streams is a
/// few jobs and one `sendmsg` per stream. One write at a
/// time: events that come while a chunk is being written, or while the rest of
/// one waits for room in the socket, wait for that write to finish.
package struct StreamQueue {
    /// What the stream is doing.
    package enum State {
        /// Its first view models are being queued; nothing is written before `start`.
        case starting
        /// Nothing to write; new events ask for a delivery.
        case idle
        /// A `deliver` job is queued on the loop.
        case deliveryQueued
        /// A chunk is being written, or its rest waits for room in the socket.
        case writing
        /// Ended: nothing more is written.
        case ended
    }

    private(set) var state = State.starting

    /// The events of the write under way: held until it finishes.
    private var writing: [StreamEvent] = []
    /// The unsent view model of each topic, by the topic's place in the stream's topics.
    private var pending: [StreamEvent?]
    private var pendingCount = 0
    private var notifications: [StreamEvent] = []
    /// Topics (bits by place) that received a change since the stream opened:
    /// their initial (possibly older) view models must not replace them.
    private var changed: UInt64 = 0
    /// For a stream that takes patches: the version of each topic's view model
    /// it was last given, by place (`TopicUpdate.unknown` when not known).
    private var versions: [UInt64]
    /// The feed position each topic's initial view model shows every change
    /// up to, by place: a change at or before it, published late, is no news
    /// to a stream of whole view models.
    private var shown: [Int64]
    /// For a stream of whole view models: the bytes of each topic's latest
    /// view model queued, by place. A pass builds from the state as it is, so
    /// one that comes behind the feed (a first view model built while a
    /// change was applied, a pass while the next entries were) shows later
    /// changes, whose own passes then build the same bytes: no news, not
    /// sent. The bytes are the pass's, shared with the user's other streams.
    private var lastJSON: [SharedBytes?]
    private var heartbeatDue = false

    /// Notifications held for a stream that is not reading; past this it is
    /// too far behind and is ended, to resume with Last-Event-ID.
    package static let maxQueuedNotifications = 64

    /// At most 64 topics: their places are bits of `changed`.
    package init(topicCount: Int, takesPatches: Bool) {
        precondition(topicCount <= UInt64.bitWidth, "a stream follows at most 64 topics")
        pending = Array(repeating: nil, count: topicCount)
        shown = Array(repeating: 0, count: topicCount)
        lastJSON = takesPatches ? [] : Array(repeating: nil, count: topicCount)
        versions = takesPatches ? Array(repeating: TopicUpdate.unknown, count: topicCount) : []
    }

    /// This stream's share of the bytes of the events queued here or taken
    /// for a write that has not finished (see `StreamEvent.share`): what it
    /// keeps alive, events shared with other streams in equal parts.
    package var heldBytes: Int {
        var bytes = 0
        for event in pending { if let event { bytes += event.share } }
        for event in notifications { bytes += event.share }
        for event in writing { bytes += event.share }
        return bytes
    }

    package var isEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    /// Events waiting to be written.
    package var queuedCount: Int { pendingCount + notifications.count }

    // MARK: - Writing

    /// On the loop, once the stream is subscribed: its first write, the
    /// reconnection delay and what was queued; nil when it ended meanwhile.
    package mutating func start() -> [SharedBytes]? {
        switch state {
        case .starting:
            state = .writing
            return [StreamEvent.retry] + (takeEvents() ?? [])
        case .ended:
            return nil
        case .idle, .deliveryQueued, .writing:
            preconditionFailure("a stream started twice")
        }
    }

    /// On the loop, for a queued delivery: what to write, or nil when nothing
    /// is (the stream ended since).
    package mutating func deliver() -> [SharedBytes]? {
        switch state {
        case .deliveryQueued:
            guard let events = takeEvents() else {
                state = .idle
                return nil
            }
            state = .writing
            return events
        case .ended:
            return nil
        case .starting, .idle, .writing:
            preconditionFailure("a delivery without one queued")
        }
    }

    /// A write finished whole: the bytes it held are free. What came while it
    /// was written is to be written next.
    package mutating func wrote() -> Wrote {
        let freed = releaseWriting()
        guard case .writing = state else { return Wrote(heldBytesChange: freed) }
        guard let events = takeEvents() else {
            state = .idle
            return Wrote(heldBytesChange: freed)
        }
        return Wrote(heldBytesChange: freed, next: events)
    }

    /// What a finished write leaves to do.
    package struct Wrote {
        package var heldBytesChange: Int
        /// Events to write at once, when some came meanwhile.
        package var next: [SharedBytes]?
    }

    /// The stream is to end, whatever it is writing: true the first time, when
    /// the caller must close it (on its loop) and take it out of every index.
    package mutating func end() -> Bool {
        if case .ended = state { return false }
        state = .ended
        return true
    }

    /// Once the stream has left every index: nothing it held is counted any
    /// more. The change in bytes held.
    package mutating func releaseAll() -> Int {
        var freed = releaseWriting()
        for place in pending.indices {
            freed += pending[place]?.release() ?? 0
            pending[place] = nil
        }
        pendingCount = 0
        for event in notifications { freed += event.release() }
        notifications.removeAll()
        return freed
    }

    /// The write's events are held no more; the change in bytes held.
    private mutating func releaseWriting() -> Int {
        var freed = 0
        for event in writing { freed += event.release() }
        writing.removeAll(keepingCapacity: true)
        return freed
    }

    // MARK: - New events

    /// What queuing an event asks of its caller.
    package struct Queued {
        /// The change in bytes held.
        package var heldBytesChange = 0
        /// A `deliver` job is to be queued on the stream's loop.
        package var mustDeliver = false
        /// The stream is too far behind and is to end.
        package var tooFarBehind = false
    }

    /// A topic's initial view model (at `version`, for patches), showing every
    /// change up to the feed position `shown`, unless a change has already
    /// brought a newer one; written by `start`.
    package mutating func pushInitial(_ event: StreamEvent, version: UInt64, showing shown: Int64, at place: Int) -> Int {
        self.shown[place] = shown
        guard changed & (1 << place) == 0 else { return 0 }
        if versions.isEmpty { lastJSON[place] = event.json } else { versions[place] = version }
        return setPending(event, at: place)
    }

    /// A topic's new view model or its patch, replacing what of the topic is
    /// not yet sent. A stream of whole view models gets nothing for a change
    /// its first view model already shows (committed before the stream
    /// opened, published after), nor one with the bytes of the one before;
    /// a stream of patches gets every version, since each patch names the
    /// event it applies to (its lane sends no version twice).
    package mutating func push(_ update: TopicUpdate, at place: Int) -> Queued {
        if versions.isEmpty && !update.isRebuild {
            if update.whole.id <= shown[place] { return Queued() }
            if let last = lastJSON[place], last.hasSameBytes(as: update.whole.json) { return Queued() }
            lastJSON[place] = update.whole.json
        }
        changed |= 1 << place
        let delta = setPending(event(of: update, at: place), at: place)
        return Queued(heldBytesChange: delta, mustDeliver: needsDelivery())
    }

    /// A notification, or the news that the stream is too far behind to take it.
    package mutating func pushNotification(_ event: StreamEvent) -> Queued {
        guard notifications.count < Self.maxQueuedNotifications else { return Queued(tooFarBehind: true) }
        notifications.append(event)
        return Queued(heldBytesChange: event.hold(), mustDeliver: needsDelivery())
    }

    /// A comment is due, to keep proxies from closing a quiet stream.
    package mutating func heartbeat() -> Queued {
        heartbeatDue = true
        return Queued(mustDeliver: needsDelivery())
    }

    // MARK: - The queue itself

    private var hasEventsToWrite: Bool { pendingCount > 0 || !notifications.isEmpty || heartbeatDue }

    /// After new events: whether a `deliver` job must be queued for them.
    private mutating func needsDelivery() -> Bool {
        guard case .idle = state else { return false }
        state = .deliveryQueued
        return true
    }

    /// The event of `update` this stream is to be given for the topic at
    /// `place`: the patch when it applies to what the stream has and nothing
    /// of the topic waits, else the whole view model.
    private mutating func event(of update: TopicUpdate, at place: Int) -> StreamEvent {
        guard !versions.isEmpty else { return update.whole }
        defer { versions[place] = update.version }
        if let patch = update.patch, pending[place] == nil, update.base != TopicUpdate.unknown, versions[place] == update.base {
            return patch
        }
        return update.whole
    }

    /// Queues `event` for a topic, in place of one not yet sent; the change in bytes held.
    private mutating func setPending(_ event: StreamEvent, at place: Int) -> Int {
        let delta = event.hold() + (pending[place]?.release() ?? 0)
        if pending[place] == nil { pendingCount += 1 }
        pending[place] = event
        return delta
    }

    /// What is to be written, oldest id first, and the queue emptied; nil when
    /// nothing is. Its events stay held (`writing`) until the write is done.
    private mutating func takeEvents() -> [SharedBytes]? {
        guard hasEventsToWrite else { return nil }
        heartbeatDue = false
        if notifications.isEmpty, pendingCount == 1, let place = pending.firstIndex(where: { $0 != nil }) {
            // The common case of a fan-out: one new view model, nothing to order.
            let event = pending[place]!
            writing.append(event)
            pending[place] = nil
            pendingCount = 0
            return event.pieces
        }
        var events: [StreamEvent] = []
        events.reserveCapacity(pendingCount + notifications.count)
        if pendingCount > 0 {
            for place in pending.indices {
                if let event = pending[place] {
                    events.append(event)
                    pending[place] = nil
                }
            }
            pendingCount = 0
        }
        events += notifications
        notifications.removeAll(keepingCapacity: true)
        writing += events
        guard !events.isEmpty else { return [StreamEvent.heartbeat] }
        if events.count > 1 { events.sort { $0.id < $1.id } }
        return events.flatMap(\.pieces)
    }
}
