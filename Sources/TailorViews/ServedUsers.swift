import Synchronization
import TailorLoop

/// The users this server serves: a stream of theirs is open here, or closed
/// less than `grace` ago (a reconnect then finds everything followed), or a
/// request of theirs came within it, and the users every server serves (the bot, whose chats every server's bot
/// answers). The feed's follower applies an entry that touches one of them
/// and passes over one that touches none, without decoding it: it only lets
/// go of what this server kept of its users (`FeedHandler.passed`).
///
/// A user's entries are all applied here from the position the follower had
/// decided on when the user came to be served (`since`): a stream resuming
/// from before it cannot trust what the lanes logged for that user.
///
/// The follower decides an entry in three steps (`FeedFollower`), which
/// keep a stream that opens meanwhile from missing it: it says the entry's
/// position (`deciding`), looks whether its users are served, and if not
/// lets go of their state and looks again. A stream registers before it
/// builds its first view models: either the follower's first or second look
/// sees it and applies the entry, or the entry's state was let go before the
/// view models are built (read from the database, with the entry in it) and
/// `since` covers its position.
package final class ServedUsers: Sendable {
    private struct State {
        /// Streams open, by user.
        var open: [Int: Int] = [:]
        /// When the last stream of a user closed, on the monotonic clock.
        var closedAt: [Int: UInt64] = [:]
        /// Where each served user's entries began to be applied here.
        var since: [Int: Int] = [:]
        /// Users whose grace ended, not yet taken by the follower.
        var ended: [Int] = []

        func serves(_ user: Int, at now: UInt64, grace: UInt64) -> Bool {
            open[user] != nil || closedAt[user].map { now &- $0 < grace } ?? false
        }
    }

    private let state = Mutex(State())
    /// The position the follower last decided on.
    private let decided = Atomic<Int>(0)
    private let grace: UInt64
    private let everywhere: Set<Int>
    /// Whether entries are passed over at all: nothing is, unless asked.
    private let passesOver: Bool
    /// Told of each user who comes to be served (the bus's interest), outside the lock.
    private let newlyServed = WiredLater<@Sendable (Int) -> Void>()

    /// How long a user stays served after their last stream closed.
    package static let defaultGrace: Duration = .seconds(30)
    /// Users whose grace ended are forgotten when this many wait.
    static let sweepAt = 1_024

    /// `passesOver`: false for a server that applies every entry, whom
    /// it serves or not (everyone then counts as served).
    package init(grace: Duration = defaultGrace, everywhere: Set<Int> = [], passesOver: Bool = true) {
        self.grace = MonotonicClock.nanoseconds(grace)
        self.everywhere = everywhere
        self.passesOver = passesOver
    }

    /// A stream of `user` opened: returns the position after which every
    /// entry of theirs is applied here (0 where nothing is passed over).
    @discardableResult
    package func opened(_ user: Int) -> Int {
        let (since, became) = state.withLock { state in
            let became = !state.serves(user, at: MonotonicClock.now, grace: grace)
            if became { state.since[user] = decided.load(ordering: .acquiring) }
            state.open[user, default: 0] += 1
            state.closedAt[user] = nil
            return (passesOver ? state.since[user] ?? 0 : 0, became)
        }
        if became { tellNewlyServed(user) }
        return since
    }

    /// A request of `user` came here: they are served for the grace after
    /// it, as after a stream, so that what they read here is kept here.
    package func requested(_ user: Int) {
        let became = state.withLock { state in
            let now = MonotonicClock.now
            let became = !state.serves(user, at: now, grace: grace)
            if became { state.since[user] = decided.load(ordering: .acquiring) }
            guard state.open[user] == nil else { return became }
            state.closedAt[user] = now
            if state.closedAt.count >= Self.sweepAt { sweep(&state, at: now) }
            return became
        }
        if became { tellNewlyServed(user) }
    }

    /// Calls `tell` with each user who comes to be served from now on.
    package func whenNewlyServed(_ tell: @escaping @Sendable (Int) -> Void) {
        newlyServed.wire(tell)
    }

    private func tellNewlyServed(_ user: Int) {
        guard passesOver, let tell = newlyServed.value else { return }
        tell(user)
    }

    /// A stream of `user` closed.
    package func closed(_ user: Int) {
        state.withLock { state in
            guard let count = state.open[user] else { return }
            guard count == 1 else {
                state.open[user] = count - 1
                return
            }
            state.open[user] = nil
            let now = MonotonicClock.now
            state.closedAt[user] = now
            if state.closedAt.count >= Self.sweepAt { sweep(&state, at: now) }
        }
    }

    /// Forgets the users whose grace ended, and keeps them for `takeEnded`.
    private func sweep(_ state: inout State, at now: UInt64) {
        for (user, closed) in state.closedAt where now &- closed >= grace {
            state.closedAt[user] = nil
            state.since[user] = nil
            if passesOver { state.ended.append(user) }
        }
    }

    /// The users no longer served since the last call: their grace ended
    /// with no stream or request of theirs. The follower lets go of what is
    /// kept of them (`FeedHandler.noLongerServed`); one served again by then
    /// is not among them. Always none where nothing is passed over.
    package func takeEnded() -> [Int] {
        state.withLock { state in
            sweep(&state, at: MonotonicClock.now)
            defer { state.ended.removeAll() }
            return state.ended.filter { state.open[$0] == nil && state.closedAt[$0] == nil }
        }
    }

    /// The follower is deciding the entry at `position`.
    package func deciding(_ position: Int) {
        decided.store(position, ordering: .releasing)
    }

    /// Whether `user` is served here: everyone is where nothing is passed over.
    package func serves(_ user: Int) -> Bool {
        guard passesOver, !everywhere.contains(user) else { return true }
        return state.withLock { $0.serves(user, at: MonotonicClock.now, grace: grace) }
    }

    /// Whether any of `users` is served here; nil (anyone) always is.
    package func servesAny(of users: [Int]?) -> Bool {
        guard passesOver, let users else { return true }
        if users.contains(where: everywhere.contains) { return true }
        return state.withLock { state in
            let now = MonotonicClock.now
            return users.contains { state.serves($0, at: now, grace: grace) }
        }
    }

    /// The position after which every entry of `user` was applied here, if they are served.
    package func since(_ user: Int) -> Int? {
        state.withLock { state in
            guard state.serves(user, at: MonotonicClock.now, grace: grace) else { return nil }
            return passesOver ? state.since[user] ?? 0 : 0
        }
    }

    /// The users served now, those served everywhere among them, in order.
    package var users: [Int] {
        state.withLock { state in
            let now = MonotonicClock.now
            let graced = state.closedAt.filter { now &- $0.value < grace }.keys
            return Set(state.open.keys).union(graced).union(everywhere).sorted()
        }
    }

    /// Users served now.
    package var count: Int {
        state.withLock { state in
            let now = MonotonicClock.now
            return state.open.count + state.closedAt.values.count { now &- $0 < grace }
        }
    }
}
