import TailorDomain
import TailorLoop
import TailorStore
import TailorViews

/// Whom a commit heard of touches, as its message said: the bus's says
/// (`FeedAnnouncement`), PostgreSQL's does not.
enum Audience {
    case unsaid
    case anyone
    case users([Int])
}

/// An entry's body carried by its commit's message, and whom it touches; no
/// body for a stub (`CommitStub`) or an entry too large to carry.
struct Carried {
    let body: [UInt8]?
    let users: Audience
}

/// The follower's applying: the entries known without a read and those read,
/// each in position order, applied when it touches a user this server serves
/// (`ServedUsers`) and passed over otherwise, undecoded where its users were
/// told.
extension FeedFollower {
    /// One entry known without a read, as it is applied.
    private enum Known {
        /// This server's, handed over by its writer: always applied.
        case own(FeedEntry)
        /// Another server's, decoded, with the users it touches (nil: anyone).
        case decoded(FeedEntry, users: [Int]?)
        /// Another server's, left undecoded: none of its users was served
        /// when it came. Its body, if told, or it is read should one come to be.
        case undecoded(position: Int, body: [UInt8]?, users: [Int])

        var position: Int {
            switch self {
            case .own(let entry), .decoded(let entry, _): entry.position
            case .undecoded(let position, _, _): position
            }
        }
    }

    /// Applies the entries that follow the last position applied with none
    /// missing between, known without a read: this server's own commits,
    /// which the writer handed over, and other servers' whose notifications
    /// carried them. Under a single server (or servers taking turns) that is
    /// nearly every entry, and on several most of them.
    func applyKnown(on connection: PostgresConnection, carried: inout [Int: Carried]) throws {
        // Taken before the snapshot can begin, so that it shows every one of
        // them: an entry handed over while they are applied waits for the next turn.
        let from = progress.applied
        var known: [Known] = []
        while true {
            let next = (known.last?.position ?? from) + 1
            if let entry = takeWrittenHere(at: next) {
                known.append(.own(entry))
            } else if let entry = carried.removeValue(forKey: next) {
                if case .users(let users) = entry.users, !served.servesAny(of: users) {
                    known.append(.undecoded(position: next, body: entry.body, users: users))
                    continue
                }
                guard let body = entry.body else {
                    // Only a read gets it, which `follow` makes soon.
                    carried[next] = entry
                    break
                }
                do {
                    let changes = try ChangeEncoding.changes(from: body)
                    let users: [Int]? = switch entry.users {
                    case .unsaid: ChangeAudience.users(of: changes)
                    case .anyone: nil
                    case .users(let users): users
                    }
                    known.append(.decoded(FeedEntry(position: next, changes: changes), users: users))
                } catch {
                    // Left to the read, which says why it skips it.
                    break
                }
            } else {
                break
            }
        }
        let applied = known.last?.position ?? from
        if !carried.isEmpty { carried = carried.filter { $0.key > applied } }
        guard let last = known.last else { return }
        applyCount.add(1, ordering: .relaxed)
        let store = Store(connection)
        try connection.readTransaction {
            let snapshot = FeedSnapshot(takenWhenRead: store, pastApplied: from)
            for entry in known {
                switch entry {
                case .own(let entry):
                    apply(entry, snapshot: snapshot)
                case .decoded(let entry, let users):
                    if isApplied(entry.position, touching: users) { handler.committed(entry, snapshot: snapshot) }
                case .undecoded(let position, let body, let users):
                    if isApplied(position, touching: users), let body = try body ?? store.feedBody(at: position),
                       let entry = decoded(position, body) {
                        handler.committed(entry, snapshot: snapshot)
                    }
                }
                progress.advance(to: entry.position)
            }
        }
        latest.store(max(latest.load(ordering: .relaxed), last.position), ordering: .relaxed)
    }

    /// This server's own entry, applied whoever it touches: the push
    /// delivery and the bot here learn of its news, whoever else serves its users.
    private func apply(_ own: FeedEntry, snapshot: FeedSnapshot) {
        served.deciding(own.position)
        handler.committed(own, snapshot: snapshot)
    }

    /// Whether the entry at `position`, touching `users` (nil: anyone), is
    /// applied here. One that touches no served user is passed over: what is
    /// kept of its users is let go, and then it is looked at again, for a
    /// stream that opened meanwhile (`ServedUsers`).
    private func isApplied(_ position: Int, touching users: [Int]?) -> Bool {
        served.deciding(position)
        guard let users, !served.servesAny(of: users) else { return true }
        handler.passed(position, users: users)
        if served.servesAny(of: users) { return true }
        passedOverCount.add(1, ordering: .relaxed)
        return false
    }

    /// The entry `body` holds; nil, said, when it cannot be decoded.
    private func decoded(_ position: Int, _ body: [UInt8]) -> FeedEntry? {
        do {
            return FeedEntry(position: position, changes: try ChangeEncoding.changes(from: body))
        } catch {
            // Written by a newer version of the server, or damaged: the
            // feed goes on without it rather than stop here for good.
            failures.log("the change feed's entry \(position) was skipped: \(error)")
            return nil
        }
    }

    /// Reads the next entries and applies them, up to a position still
    /// missing (`FeedGaps`); returns whether more may be read at once. The
    /// page is one statement, a snapshot of its own; what the handler reads
    /// besides, it reads in one snapshot begun with its first read, and most
    /// pages need none: then the read is one round trip, with no transaction.
    func applyNext(on connection: PostgresConnection, gaps: inout FeedGaps) throws -> Bool {
        let from = progress.applied
        let store = Store(connection)
        let page = try store.feedPage(after: from, limit: Self.batchSize, settling: gaps.waiting?.writers)
        readCount.add(1, ordering: .relaxed)
        latest.store(page.latest, ordering: .relaxed)
        guard !page.entries.isEmpty else { return false }
        if from < page.horizon {
            failures.log("this server fell behind the change feed past its pruned entries (at \(from), pruned to "
                + "\(page.horizon)): its caches start over and every stream gets its view models anew")
            // From a position with no commit still under way below it, as a server starts.
            let (position, settled) = try store.settledPosition(patience: gapPatience, listening: true)
            if !settled { failures.log(FeedGaps.givenUp(below: position + 1, after: gapPatience)) }
            handler.startOver(at: position)
            progress.advance(to: position)
            gaps = FeedGaps(patience: gapPatience)
            return false
        }
        let waitedBelow = gaps.waiting?.below
        let (count, unsettled) = gaps.applicable(after: from, positions: page.entries.map(\.position), writersEnded: page.writersEnded,
                                                 now: MonotonicClock.now)
        if unsettled, let waitedBelow { failures.log(FeedGaps.givenUp(below: waitedBelow, after: gapPatience)) }
        // After the read: every transaction that could fill the gap and had not ended by then.
        if gaps.needsWriters { gaps.note(writers: try store.writersInProgress()) }
        guard count > 0 else { return false }
        try connection.readTransaction {
            let snapshot = FeedSnapshot(takenWhenRead: store, pastApplied: from)
            for row in page.entries.prefix(count) {
                if let own = takeWrittenHere(at: row.position) {
                    apply(own, snapshot: snapshot)
                } else {
                    entriesReadCount.add(1, ordering: .relaxed)
                    if isApplied(row.position, touching: row.users), let entry = decoded(row.position, row.body) {
                        handler.committed(entry, snapshot: snapshot)
                    }
                }
                progress.advance(to: row.position)
            }
        }
        return count == Self.batchSize
    }
}
