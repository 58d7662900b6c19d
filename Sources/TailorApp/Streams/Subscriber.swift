import Synchronization
import TailorHTTP
import TailorLoop

/// One open event stream: the topics it follows and what waits to be sent.
///
/// A newer view model of a topic replaces an unsent older one, so a slow reader
/// holds at most one event per topic (lossless for state: each event is a whole
/// view model). Notifications queue up to a bound; a stream past it is too far
/// behind and is ended, to resume with Last-Event-ID.
///
/// A stream that takes patches is given a topic's patch only when it was
/// given the very version the patch applies to, and nothing of that topic
/// waits unsent; otherwise the whole view model, which replaces what waits.
///
/// New events are written by `deliver`, a job on the stream's loop, while the
/// stream's task sleeps in `next`: a fan-out to thousands of streams then costs
/// one job per loop and one `sendmsg` per stream, not a task switch per stream.
/// The task wakes only for what cannot be done at once: the rest of a chunk the
/// socket did not take whole, or the end.
final class Subscriber: Sendable {
    let user: Int
    /// The token hash of the browser session the stream was opened with; nil for the account token.
    let session: [UInt8]?
    let topics: [Topic]
    /// Whether the stream asked for patches (`patch=json`).
    let takesPatches: Bool
    /// Confined to its loop: written by the task, or by `deliver` while the task sleeps.
    let stream: ResponseStream

    /// Notifications held for a stream that is not reading.
    static let maxQueuedNotifications = 64

    private struct Queue {
        /// Bytes of the events queued here or taken for a write that has not
        /// finished: what this stream keeps alive.
        var heldBytes = 0
        /// Of those, the bytes of the write under way.
        var writingBytes = 0
        /// The unsent view model of each topic, by the topic's place in `topics`.
        var pending: [StreamEvent?]
        var pendingCount = 0
        var notifications: [StreamEvent] = []
        /// Topics (bits by place) that received a change since the stream opened:
        /// their initial (possibly older) view models must not replace them.
        var changed: UInt64 = 0
        /// For a stream that takes patches: the version of each topic's view
        /// model it was last given, by place (`TopicUpdate.unknown` when not known).
        var versions: [UInt64]
        var heartbeatDue = false
        var ended = false
        /// A chunk went out in part; the task must finish it before anything else.
        var mustFinishWrite = false
        /// The stream's task, while it sleeps in `next`.
        var sleeper: UnsafeContinuation<Void, Never>?
        /// A `deliver` job is queued on the loop.
        var deliveryQueued = false

        init(topicCount: Int, takesPatches: Bool) {
            pending = Array(repeating: nil, count: topicCount)
            versions = takesPatches ? Array(repeating: TopicUpdate.unknown, count: topicCount) : []
        }

        /// The event of `update` this stream is to be given for the topic at
        /// `place`: the patch when it applies to what the stream has and
        /// nothing of the topic waits, else the whole view model.
        mutating func event(of update: TopicUpdate, at place: Int) -> StreamEvent {
            guard !versions.isEmpty else { return update.whole }
            defer { versions[place] = update.version }
            if let patch = update.patch, pending[place] == nil, update.base != TopicUpdate.unknown, versions[place] == update.base {
                return patch
            }
            return update.whole
        }

        var hasEventsToWrite: Bool { pendingCount > 0 || !notifications.isEmpty || heartbeatDue }

        /// Queues `event` for a topic, in place of one not yet sent; the change
        /// in bytes held.
        mutating func setPending(_ event: StreamEvent, at place: Int) -> Int {
            let delta = event.byteCount - (pending[place]?.byteCount ?? 0)
            if pending[place] == nil { pendingCount += 1 }
            pending[place] = event
            heldBytes += delta
            return delta
        }

        mutating func addNotification(_ event: StreamEvent) {
            notifications.append(event)
            heldBytes += event.byteCount
        }

        /// Everything queued was taken for a write: its bytes are held until
        /// the write is done.
        mutating func startWriting() {
            writingBytes = heldBytes
        }

        /// A write finished whole: the bytes it held are free. The change in bytes held.
        mutating func finishWriting() -> Int {
            let freed = writingBytes
            heldBytes -= freed
            writingBytes = 0
            return -freed
        }

        /// What is to be written, oldest id first, and the queue emptied; nil when nothing is.
        mutating func takeEvents() -> [SharedBytes]? {
            guard hasEventsToWrite else { return nil }
            heartbeatDue = false
            startWriting()
            if notifications.isEmpty, pendingCount == 1, let place = pending.firstIndex(where: { $0 != nil }) {
                // The common case of a fan-out: one new view model, nothing to order.
                defer {
                    pending[place] = nil
                    pendingCount = 0
                }
                return pending[place]!.pieces
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
            guard !events.isEmpty else { return [StreamEvent.heartbeat] }
            if events.count > 1 { events.sort { $0.id < $1.id } }
            return events.flatMap(\.pieces)
        }

        /// After new events: whether a `deliver` job must be queued for them.
        mutating func needsDelivery() -> Bool {
            guard sleeper != nil, !deliveryQueued else { return false }
            deliveryQueued = true
            return true
        }
    }

    private let queue: Mutex<Queue>
    private let memory: StreamMemory

    /// At most 64 topics: their places are bits of `Queue.changed`.
    init(user: Int, session: [UInt8]? = nil, topics: [Topic], takesPatches: Bool = false, stream: ResponseStream, memory: StreamMemory) {
        precondition(topics.count <= UInt64.bitWidth, "a stream follows at most 64 topics")
        self.user = user
        self.session = session
        self.topics = topics
        self.takesPatches = takesPatches
        self.stream = stream
        self.memory = memory
        queue = Mutex(Queue(topicCount: topics.count, takesPatches: takesPatches))
    }

    /// Whether the stream is to end: it takes no part in memory decisions then.
    var isEnding: Bool { queue.withLock { $0.ended } }

    /// Bytes this stream keeps alive for events not yet written.
    var heldBytes: Int { queue.withLock { $0.heldBytes } }

    /// For the stream's task: the events `next` gave were written whole.
    func wrote() {
        memory.change(by: queue.withLock { $0.finishWriting() })
    }

    /// Once the stream has left every index: nothing it held is counted any more.
    func releaseAll() {
        memory.change(by: queue.withLock { queue in
            defer {
                queue.pending = queue.pending.map { _ in nil }
                queue.pendingCount = 0
                queue.notifications.removeAll()
                queue.heldBytes = 0
                queue.writingBytes = 0
            }
            return -queue.heldBytes
        })
    }

    /// For the stream's task: what to write next, oldest id first (empty when
    /// only the rest of an earlier chunk is due); nil once the stream must end.
    func next() async -> [SharedBytes]? {
        while true {
            let events = queue.withLock { queue -> [SharedBytes]?? in
                if queue.ended { return .some(nil) }
                if queue.mustFinishWrite {
                    queue.mustFinishWrite = false
                    return .some(queue.takeEvents() ?? [])
                }
                return queue.takeEvents().map { .some($0) }
            }
            if let events { return events }
            await withUnsafeContinuation { continuation in
                let wakeNow = queue.withLock { queue -> Bool in
                    if queue.ended || queue.mustFinishWrite || queue.hasEventsToWrite { return true }
                    queue.sleeper = continuation
                    return false
                }
                if wakeNow { continuation.resume() }
            }
        }
    }

    /// On the stream's loop: writes what waits while the task sleeps, without
    /// waking it. The socket is free as long as the task sleeps, and the task can
    /// only wake on this same thread, after this job.
    func deliver() {
        assert(stream.loop.inLoopThread, "a stream is delivered off its loop")
        let events = queue.withLock { queue -> [SharedBytes]? in
            queue.deliveryQueued = false
            guard queue.sleeper != nil, !queue.ended else { return nil }
            return queue.takeEvents()
        }
        guard let events else { return }
        do {
            if try stream.writeWithoutWaiting(events) {
                wrote()
            } else {
                wake { $0.mustFinishWrite = true }
            }
        } catch {
            // The peer is gone.
            end()
        }
    }

    /// A topic's initial view model, at `version` for patches, unless a change
    /// has already brought a newer one. Queued while the task subscribes, so
    /// the task itself writes it.
    func pushInitial(_ event: StreamEvent, version: UInt64 = TopicUpdate.unknown, for topic: Topic) {
        guard let place = topics.firstIndex(of: topic) else { return }
        memory.change(by: queue.withLock { queue in
            guard queue.changed & (1 << place) == 0 else { return 0 }
            if !queue.versions.isEmpty { queue.versions[place] = version }
            return queue.setPending(event, at: place)
        })
    }

    /// A topic's new view model, or its patch; replaces what of the topic is
    /// not yet sent. True when the caller must have the stream's loop `deliver` it.
    func push(_ update: TopicUpdate, for topic: Topic) -> Bool {
        guard let place = topics.firstIndex(of: topic) else { return false }
        let (delta, mustDeliver) = queue.withLock { queue in
            queue.changed |= 1 << place
            return (queue.setPending(queue.event(of: update, at: place), at: place), queue.needsDelivery())
        }
        memory.change(by: delta)
        return mustDeliver
    }

    /// Queues a notification, or ends a stream too far behind to take it. True
    /// when the caller must have the stream's loop `deliver` it.
    func pushNotification(_ event: StreamEvent) -> Bool {
        var tooFarBehind = false
        let mustDeliver = queue.withLock { queue -> Bool in
            guard queue.notifications.count < Self.maxQueuedNotifications else {
                tooFarBehind = true
                return false
            }
            queue.addNotification(event)
            return queue.needsDelivery()
        }
        if tooFarBehind {
            memory.noteEndedSlow()
            end()
        } else {
            memory.change(by: event.byteCount)
        }
        return mustDeliver
    }

    /// A comment is due. True when the caller must have the stream's loop `deliver` it.
    func heartbeat() -> Bool {
        queue.withLock { queue in
            queue.heartbeatDue = true
            return queue.needsDelivery()
        }
    }

    /// Ends the stream after what it is writing now.
    func end() {
        wake { $0.ended = true }
    }

    /// Ends the stream now, even in the middle of a write its reader does not
    /// take: what it holds is freed at once rather than at the write timeout.
    func abort() {
        end()
        let stream = stream
        stream.loop.execute { stream.abort() }
    }

    /// Events waiting to be written.
    var queuedCount: Int { queue.withLock { $0.pendingCount + $0.notifications.count } }

    /// Changes the queue and wakes the task if it sleeps.
    private func wake(_ change: (inout Queue) -> Void) {
        let sleeper = queue.withLock { queue -> UnsafeContinuation<Void, Never>? in
            change(&queue)
            defer { queue.sleeper = nil }
            return queue.sleeper
        }
        sleeper?.resume()
    }
}
