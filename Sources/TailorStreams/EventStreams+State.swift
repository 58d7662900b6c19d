import Synchronization
import TailorDomain
import TailorLoop
import TailorViews

/// What each lane keeps for its users alone: their subscribers, the position
/// the lane published, the patch bases, the failed builds, and the log that
/// resumes streams. It lives on the lane's loop and is touched only there, as
/// a NIO channel's state belongs to its event loop: the lane's passes run on
/// that loop, and every other call (a stream opening on another loop, the
/// feed's thread, the tickers, shutdown) is handed to it as a job.
extension EventStreams {
    /// One lane's state, confined to the lane's loop.
    final class LaneState: Sendable {
        let loop: EventLoop
        /// Touched only on `loop`, so it needs no lock.
        private let stored: ThreadConfined<Box>
        /// Counts kept beside the state for threads that only read them (metrics).
        let streamCount = Atomic<Int>(0)
        let followedKeyCount = Atomic<Int>(0)

        private final class Box {
            var state: State

            init(_ state: consuming State) {
                self.state = state
            }
        }

        init(_ state: consuming State, loop: EventLoop) {
            stored = ThreadConfined(Box(state))
            self.loop = loop
        }

        /// Runs `body` on the state; call on the lane's loop.
        func with<Result>(_ body: (inout State) -> Result) -> Result {
            assert(loop.inLoopThread, "a lane's state touched off its loop")
            let box = stored.value
            let result = body(&box.state)
            streamCount.store(box.state.subscribers.count, ordering: .relaxed)
            followedKeyCount.store(box.state.subscribers.followedKeyCount, ordering: .relaxed)
            return result
        }

        /// Runs `body` on the state in a job of the lane's loop, after the
        /// work queued there before; never at once, so that it may be asked
        /// for from inside `with` (a stream ending while a pass queues to it).
        func later(_ body: @escaping @Sendable (inout State) -> Void) {
            loop.execute { [self] in with(body) }
        }

        /// What `body` finds in the state, from any task: at once on the
        /// lane's loop, else after a hop there.
        func ask<Result: Sendable>(_ body: @escaping @Sendable (inout State) -> Result) async -> Result {
            if loop.inLoopThread { return with(body) }
            return await withUnsafeContinuation { answer in
                loop.execute { [self] in answer.resume(returning: with(body)) }
            }
        }

        /// What `body` finds in the state, for a thread that may block and is
        /// not a loop's (the signal handler, shutdown).
        func askAndWait<Result: Sendable>(_ body: @escaping @Sendable (inout State) -> Result) -> Result {
            let answer = Mutex<Result?>(nil)
            loop.executeAndWait { [self] in
                let found = with(body)
                answer.withLock { $0 = found }
            }
            return answer.withLock { $0! }
        }
    }

    enum LogEntry {
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
    struct PatchBase {
        let version: UInt64
        /// The id of the event that brought this version.
        let eventID: Int64
        let document: JSONPatch.Version
    }

    struct State {
        /// The latest feed position the lane has published.
        var published: Int64
        /// For each view model some stream takes patches of, its latest version.
        var patchBases: [ViewKey: PatchBase] = [:]
        /// The latest version number given out (`nextVersion`).
        var lastVersion = TopicUpdate.unknown
        /// View models whose builds failed, with the attempts made so far.
        var failedBuilds: [ViewKey: Int] = [:]
        var subscribers = SubscriberIndex()
        /// Recent changes and notifications of the lane's users, at most `logCapacity`, in order.
        var log: [LogEntry] = []
        var logStart = 0
        /// Ids at or after this one are all in the log.
        var loggedSince: Int64
        var closed = false

        mutating func append(_ entry: LogEntry) {
            if log.count - logStart >= EventStreams.logCapacity {
                logStart += 1
                // A rebuild's entry takes the published position: what left may be as new as what stays.
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
}
