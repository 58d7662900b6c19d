import TailorDomain
import TailorLoop
import TailorViews

/// What each lane keeps for its users alone: their subscribers, the position
/// the lane published, the patch bases, the failed builds, and the log that
/// resumes streams. It lives on the lane's loop and is touched only there
/// (`Lane.with`).
extension Lane {
    enum LogEntry {
        case change(id: Int64, TopicChange)
        /// Kept as it came: most go to no stream (their recipient's are on
        /// another server, or none is open), so its event is made only for one.
        case notification(EventStreams.Notification)

        var id: Int64 {
            switch self {
            case .change(let id, _): id
            case .notification(let notification): notification.position
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

        /// Logs work that waited without a pass, since no stream followed
        /// it (`LaneInbox.followers`), as a pass would have: a stream that
        /// resumes from the log sees it, and the lane has published its position.
        mutating func logQuietWork(_ work: LaneInbox) {
            for change in work.changes { append(.change(id: work.position, change)) }
            for notification in work.notifications { append(.notification(notification)) }
            published = max(published, work.position)
        }

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
