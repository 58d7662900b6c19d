import TailorDomain
import TailorHTTP
import TailorLoop
import TailorViews

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
/// The rules of when it writes are `StreamQueue`'s; this class carries out
/// what its transitions say: the loop's jobs, the socket. It has no task:
/// once subscribed, its loop writes it, and closes it when it ends.
///
/// It lives on its user's lane's loop, with its socket: the lane queues
/// events on it and the loop writes them, so its queue is one thread's
/// (`ThreadConfined`) and needs no lock.
package final class Subscriber: Sendable {
    package let user: Int
    /// The token hash of the browser session the stream was opened with; nil for the account token.
    package let session: [UInt8]?
    package let topics: [Topic]
    /// Whether the stream asked for patches (`patch=json`).
    package let takesPatches: Bool
    /// On the lane's loop, as the subscriber is.
    package let stream: ResponseStream

    /// Touched only on the stream's loop.
    private let queue: ThreadConfined<StreamQueue>
    private let memory: StreamMemory
    /// Takes the ended stream out of every index, then closes its socket on its loop.
    private let leave: @Sendable (Subscriber) -> Void

    package init(user: Int, session: [UInt8]? = nil, topics: [Topic], takesPatches: Bool = false, stream: ResponseStream, memory: StreamMemory,
         leave: @escaping @Sendable (Subscriber) -> Void) {
        self.user = user
        self.session = session
        self.topics = topics
        self.takesPatches = takesPatches
        self.stream = stream
        self.memory = memory
        self.leave = leave
        queue = ThreadConfined(StreamQueue(topicCount: topics.count, takesPatches: takesPatches))
    }

    /// The queue, for `body`; on the stream's loop only.
    private func withQueue<Result>(_ body: (inout StreamQueue) -> Result) -> Result {
        assert(stream.loop.inLoopThread, "a stream's queue touched off its loop")
        return queue.withValue(body)
    }

    /// Whether the stream is to end: it takes no part in memory decisions then.
    package var isEnding: Bool { withQueue { $0.isEnded } }

    /// Bytes this stream keeps alive for events not yet written.
    package var heldBytes: Int { withQueue { $0.heldBytes } }

    /// Events waiting to be written.
    package var queuedCount: Int { withQueue { $0.queuedCount } }

    /// Once the stream has left every index: nothing it held is counted any more.
    package func releaseAll() {
        memory.change(by: withQueue { $0.releaseAll() })
    }

    // MARK: - Writing

    /// Once subscribed: writes what was queued, and from then on whatever comes.
    package func start() {
        guard let first = withQueue({ $0.start() }) else { return }
        stream.onPeerClosed { [self] in end() }
        write(first)
    }

    /// Writes what came since the stream was last idle.
    package func deliver() {
        guard let events = withQueue({ $0.deliver() }) else { return }
        write(events)
    }

    /// Writes `pieces` as one chunk, then whatever came meanwhile, until the
    /// socket has no room; then the rest as it makes room.
    private func write(_ pieces: [SharedBytes]) {
        var pieces = pieces
        while true {
            do {
                guard try stream.writeWithoutWaiting(pieces) else {
                    stream.sendRest { [self] failure in
                        if failure == nil { wrote() } else { end() }
                    }
                    return
                }
            } catch {
                // The reader is gone.
                end()
                return
            }
            guard let next = chunkWritten() else { return }
            pieces = next
        }
    }

    /// The rest of a chunk went out: on with what came meanwhile.
    private func wrote() {
        if let next = chunkWritten() { write(next) }
    }

    /// A chunk is all out: its bytes are no longer held; returns what came meanwhile, if anything.
    private func chunkWritten() -> [SharedBytes]? {
        let written = withQueue { $0.wrote() }
        memory.change(by: written.heldBytesChange)
        return written.next
    }

    // MARK: - New events

    /// A topic's initial view model, at `version` for patches and showing
    /// every change up to the feed position `shown`, unless a change has
    /// already brought a newer one. Written by `start`.
    package func pushInitial(_ event: StreamEvent, version: UInt64 = TopicUpdate.unknown, showing shown: Int64, for topic: Topic) {
        guard let place = topics.firstIndex(of: topic) else { return }
        memory.change(by: withQueue { $0.pushInitial(event, version: version, showing: shown, at: place) })
    }

    /// A topic's new view model, or its patch; replaces what of the topic is
    /// not yet sent. True when the caller must have the stream's loop `deliver` it.
    package func push(_ update: TopicUpdate, for topic: Topic) -> Bool {
        guard let place = topics.firstIndex(of: topic) else { return false }
        return carryOut(withQueue { $0.push(update, at: place) })
    }

    /// Queues a notification, or ends a stream too far behind to take it. True
    /// when the caller must have the stream's loop `deliver` it.
    package func pushNotification(_ event: StreamEvent) -> Bool {
        carryOut(withQueue { $0.pushNotification(event) })
    }

    /// A comment is due. True when the caller must have the stream's loop `deliver` it.
    package func heartbeat() -> Bool {
        carryOut(withQueue { $0.heartbeat() })
    }

    /// Ends the stream now, even in the middle of a write its reader does not
    /// take: it leaves every index and its bytes are released, then its
    /// socket closes; so once the server counts the connection closed, the
    /// stream is gone.
    package func end() {
        guard withQueue({ $0.end() }) else { return }
        leave(self)
    }

    /// Counts what was queued, or ends a stream too far behind; whether a delivery is due.
    private func carryOut(_ queued: StreamQueue.Queued) -> Bool {
        if queued.tooFarBehind {
            memory.noteEndedSlow()
            end()
            return false
        }
        memory.change(by: queued.heldBytesChange)
        return queued.mustDeliver
    }
}
