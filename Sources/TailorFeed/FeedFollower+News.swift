import TailorLoop
import TailorStore

/// The follower's news: PostgreSQL's notifications and the bus's messages,
/// taken into the entries it carries until they are applied, and the wait
/// for them.
extension FeedFollower {
    /// How often the bus's stubs are looked for while positions are missing.
    static let stubLook: Duration = .milliseconds(2)

    /// What a wait for news ended with.
    enum News {
        /// Another server's notification of a position not applied yet;
        /// `needsRead`: one came without its entry (too large to carry, or
        /// from an older server), which only a read gets.
        case notified(needsRead: Bool)
        /// This server committed what is not applied yet.
        case committedHere
        /// A request waits for a position not applied yet, of which no news came.
        case awaited
        /// The time to read came, or the follower is to stop.
        case timeUp
    }

    /// Another server's commit, announced on the bus (`BusWire`): taken like
    /// its PostgreSQL notification. A wake-up that may be lost or come late,
    /// as those may: the feed's reads make up for it. Past `carriedAtMost`
    /// waiting, the older half is dropped, and read instead.
    package func heardOnBus(_ notification: UnsafeRawBufferPointer) {
        let text = String(decoding: notification, as: UTF8.self)
        fromBus.withLock { waiting in
            if waiting.count >= Self.carriedAtMost { waiting.removeFirst(waiting.count / 2) }
            waiting.append(text)
        }
        wake.signal()
    }

    /// Takes also what the bus keeps until asked (`take`: the stubs), with
    /// the rest of the news: they wake no one, and wait for the follower's
    /// next turn — at once while it waits for positions missing, soon after
    /// someone waits for a position (`FeedProgress.whenWaitBegins`), else at
    /// the latest its turn (`BusTurns`) — which takes them many at a time: a wake-up
    /// costs more than passing a stub over. One that touches a user served
    /// here without its commit having been sent here (they came to be
    /// served as it was made) is read then.
    package func takesFromBus(_ take: @escaping @Sendable (_ each: (UnsafeRawBufferPointer) -> Void) -> Void) {
        queuedOnBus.wire(take)
    }

    /// How the follower asks whether the bus is up: while it is away, the
    /// feed is read as often as off the bus (`BusTurns`).
    package func asksWhetherBusIsUp(_ isUp: @escaping @Sendable () -> Bool) {
        busIsUp.wire(isUp)
    }

    /// Waits until the feed may hold what is not applied: a commit here or a
    /// notification of a later position, or `deadline`, the time to read
    /// anyway. A commit here comes both ways: its notification only says what
    /// the writer's hand-over says too, and is no reason to end the wait. A
    /// notification that came in with the last read's answers is in libpq's
    /// hands, not on the socket: it is looked at before waiting. Presence's
    /// signals, heard on the same connection, are handed over as they come.
    func waitForNews(on connection: PostgresConnection, until deadline: UInt64, carrying carried: inout [Int: Carried]) throws -> News {
        while !stopping.load(ordering: .acquiring) {
            let applied = progress.applied
            if let needsRead = try takeNews(on: connection, carrying: &carried) { return .notified(needsRead: needsRead) }
            let now = MonotonicClock.now
            guard now < deadline else { return .timeUp }
            // Positions missing may come by stub, which wakes no one: looked for every `stubLook`.
            let until = waitsForPositions.load(ordering: .relaxed) ? min(deadline, now + MonotonicClock.nanoseconds(Self.stubLook)) : deadline
            if wake.wait(seconds: Double(until - now) / 1e9, orReadable: connection.socket) {
                if writtenHere.withLock({ $0.last.map { $0.position > applied } ?? false }) { return .committedHere }
                if awaited.load(ordering: .relaxed) > progress.applied {
                    if let needsRead = try takeNews(on: connection, carrying: &carried) { return .notified(needsRead: needsRead) }
                    return .awaited
                }
            }
        }
        return .timeUp
    }

    /// Takes the notifications and the bus's messages that came, without
    /// waiting: nil when none tells of a position not applied yet, else
    /// whether one needs a read.
    func takeNews(on connection: PostgresConnection, carrying carried: inout [Int: Carried]) throws -> Bool? {
        let applied = progress.applied
        var notified = 0
        var needsRead = false
        var heard: [Heard] = []
        for (channel, payload) in try connection.takeNotificationsWithChannels() {
            if let presenceHeard, Store.isPresenceChannel(channel) {
                presenceHeard(.payload(payload))
            } else {
                heard.append(Self.notification(from: payload))
            }
        }
        var messages = fromBus.withLock { waiting in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        queuedOnBus.value?({ messages.append(String(decoding: $0, as: UTF8.self)) })
        for message in messages {
            heard += BusWire.parse(message).map { ($0.position, $0.origin, $0.users.map(Audience.users) ?? .anyone, $0.body) }
        }
        for notification in heard where notification.origin != origin {
            if notification.body != nil {
                bodiesHeardCount.add(1, ordering: .relaxed)
            } else if case .users = notification.users {
                stubsHeardCount.add(1, ordering: .relaxed)
            }
            notified = max(notified, notification.position)
            guard notification.position > applied, carried.count < Self.carriedAtMost else {
                needsRead = needsRead || notification.position > applied
                continue
            }
            if let body = notification.body {
                carried[notification.position] = Carried(body: Array(body.utf8), users: notification.users)
            } else if carried[notification.position] == nil {
                // A stub, or an entry too large to carry: read at once only
                // where a user it touches is served here (or it does not say).
                carried[notification.position] = Carried(body: nil, users: notification.users)
                if case .users(let users) = notification.users, !served.servesAny(of: users) { continue }
                needsRead = true
            }
        }
        guard notified > applied else { return nil }
        latest.store(max(latest.load(ordering: .relaxed), notified), ordering: .relaxed)
        return needsRead
    }

    /// A commit heard of: its position, the server that wrote it, whom it
    /// touches and the entry's body if carried.
    private typealias Heard = (position: Int, origin: Substring, users: Audience, body: Substring?)

    /// A PostgreSQL notification as heard (`Store.appendChangeAndCommit`): it does not say whom it touches.
    private static func notification(from payload: String) -> Heard {
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        return (parts.first.flatMap { Int($0) } ?? Int.max, parts.count > 1 ? parts[1] : "", .unsaid, parts.count > 2 ? parts[2] : nil)
    }
}
