/// Who is online and who is typing, as one server knows it, and when that
/// changes what its users are shown: a state machine with no I/O. Each input
/// returns the actions it calls for, and `tick` is called with the time once
/// it is `nextDue`: a server with nothing in a grace, typing or shown a
/// moment ago is not ticked at all (but for its heartbeat and the other
/// servers' lifetimes).
///
/// A user is online while they have an event stream open on this server or
/// on another that still sends its heartbeat. When their last stream here
/// closes they stay online for `offlineGrace` (a page that reloads opens its
/// next stream meanwhile, and nothing happens); past it the other servers are
/// told, and when no server has them, this one records when they were last
/// seen, the one write presence makes. Until that write is in the feed they
/// are shown online on every server, so that everyone shows "last seen" with
/// its time at once. A server not heard from for `serverLifetime` is taken to
/// be gone with its users, and the first of the servers left records their
/// last seen.
///
/// What users are shown changes at most once per `showInterval` for each user
/// shown: someone whose streams come and go several times a second makes one
/// change a second, not one for each. Typing is shown at once: it changes
/// only when someone starts or stops.
package struct PresenceTracker: Sendable {
    package struct Settings: Sendable, Equatable {
        /// Nanoseconds a user stays online after their last stream here closed.
        package var offlineGrace: UInt64 = 2_000_000_000
        /// Nanoseconds without a signal after which another server counts as gone.
        package var serverLifetime: UInt64 = 15_000_000_000
        /// Nanoseconds between two changes of what is shown of one user.
        package var showInterval: UInt64 = 1_000_000_000
        /// Nanoseconds a typing signal lasts.
        package var typingDuration: UInt64 = 5_000_000_000

        package init() {}

        /// Nanoseconds between this server's heartbeats: three in a lifetime.
        package var heartbeatInterval: UInt64 { serverLifetime / 3 }
    }

    package enum Action: Equatable, Sendable {
        /// To send to the other servers.
        case announce(PresenceSignal)
        /// To write: `user` was last seen at `at` (milliseconds since 1970).
        case recordLastSeen(user: Int, at: Int)
        /// What `user`'s contacts are shown of them changed.
        case show(user: Int)
        /// Whether `user` is typing in `chat` changed: `contact` sees it.
        case showTyping(chat: Int, user: Int, contact: Int)
        /// The server `name` was not heard from for its lifetime: taken to be
        /// gone, with the `users` it had. Worth saying: it is down, or cut off.
        case serverGone(name: String, users: Int)
    }

    /// Someone typing in a chat.
    package struct Typist: Hashable, Sendable {
        package let chat: Int
        package let user: Int
    }

    private struct OtherServer {
        var users: Set<Int> = []
        /// It said it is on the bus (`onBus`): a server's name is its run's, so that holds for its life.
        var onBus = false
        /// It said it routes commits by interest (`routesByInterest`), for its life too.
        var routesByInterest = false
        var heardAt: UInt64
        /// The same moment in milliseconds since 1970: a gone server's users' last seen.
        var heardAtTime: Int
    }

    private struct Typing {
        let contact: Int
        var until: UInt64
    }

    package let settings: Settings
    /// This server's name in its signals.
    package let server: String
    /// Users shown online whatever happens: the chatbot.
    private let alwaysOnline: Set<Int>

    /// Streams open here, by user.
    private var streams: [Int: Int] = [:]
    /// Users whose last stream here closed: until when they stay online, and
    /// when it closed.
    private var closing: [Int: (until: UInt64, at: Int)] = [:]
    private var others: [String: OtherServer] = [:]
    /// Users whose last seen is being recorded (here or on another server):
    /// until when they stay online if it never comes.
    private var leaving: [Int: UInt64] = [:]
    /// Users shown online now.
    private var shown: Set<Int> = []
    /// When each user's shown state last changed, for those changed within `showInterval`.
    private var lastShown: [Int: UInt64] = [:]
    /// Users to be shown anew once their interval is over; `true` when only
    /// their last seen changed, which must be shown even if they are shown
    /// as they are by then.
    private var due: [Int: Bool] = [:]
    private var typing: [Typist: Typing] = [:]
    /// The earliest time `tick` has something to do: a grace, a lifetime, a
    /// typing or a show interval ends (MonotonicClock; `.max`: none). It may
    /// come early, once what was due then moved later (a server heard from
    /// again): that tick finds nothing, and works it out anew.
    package private(set) var nextDue: UInt64 = .max

    package init(server: String, settings: Settings = Settings(), alwaysOnline: Set<Int> = []) {
        self.server = server
        self.settings = settings
        self.alwaysOnline = alwaysOnline
        shown = alwaysOnline
    }

    // MARK: What the views show

    package func isShownOnline(_ user: Int) -> Bool { shown.contains(user) }

    package func isTyping(_ user: Int, in chat: Int) -> Bool { typing[Typist(chat: chat, user: user)] != nil }

    /// Users shown online, on any server, but those always online.
    package var shownOnlineCount: Int { shown.subtracting(alwaysOnline).count }

    /// Other servers heard from within their lifetime.
    package var otherServerCount: Int { others.count }

    /// Whether every other server heard from said it is on the bus.
    package var everyOtherServerIsOnBus: Bool { others.values.allSatisfy(\.onBus) }

    /// Whether every other server heard from said it routes commits by interest.
    package var everyOtherServerRoutesByInterest: Bool { others.values.allSatisfy(\.routesByInterest) }

    /// Users online on this server, as its `here` lists them.
    package var usersHere: [Int] { Array(Set(streams.keys).union(closing.keys)).sorted() }

    // MARK: Inputs

    package mutating func streamOpened(by user: Int, now: UInt64) -> [Action] {
        streams[user, default: 0] += 1
        guard streams[user] == 1 else { return [] }
        // Back within the grace: the others never heard it left.
        guard closing.removeValue(forKey: user) == nil else { return [] }
        return [.announce(.online(user: user))] + update(user, now: now)
    }

    /// `time`: milliseconds since 1970, the last seen it may become.
    package mutating func streamClosed(by user: Int, now: UInt64, time: Int) -> [Action] {
        guard let count = streams[user] else { return [] }
        guard count == 1 else {
            streams[user] = count - 1
            return []
        }
        streams[user] = nil
        closing[user] = (now + settings.offlineGrace, time)
        ends(at: now + settings.offlineGrace)
        return []
    }

    /// A signal from the server named `sender`.
    package mutating func heard(_ signal: PresenceSignal, from sender: String, now: UInt64, time: Int) -> [Action] {
        guard sender != server else { return [] }
        if signal == .rollCall { return [.announce(.heartbeat)] }
        if others[sender] == nil { ends(at: now + settings.serverLifetime) }
        var other = others[sender] ?? OtherServer(heardAt: now, heardAtTime: time)
        other.heardAt = now
        other.heardAtTime = time
        var actions: [Action] = []
        var changed: Set<Int> = []
        switch signal {
        case .online(let user):
            other.users.insert(user)
            changed.insert(user)
        case .offline(let user, let lastSeen):
            other.users.remove(user)
            // Its last seen is being written: shown online until it is in the feed.
            if lastSeen != nil { leave(user, now: now) }
            changed.insert(user)
        case .typing(let chat, let user, let contact):
            actions += startTyping(chat: chat, user: user, contact: contact, now: now)
        case .here(let users, let replacing):
            if replacing {
                changed.formUnion(other.users)
                other.users = []
            }
            other.users.formUnion(users)
            changed.formUnion(users)
        case .hello:
            actions += hereList()
        case .onBus:
            other.onBus = true
        case .routesByInterest:
            other.routesByInterest = true
        case .heartbeat, .applied, .rollCall:
            break
        }
        others[sender] = other
        for user in changed.sorted() { actions += update(user, now: now) }
        return actions
    }

    /// `user` typed in `chat` on this server: the others are told.
    package mutating func typed(in chat: Int, by user: Int, contact: Int, now: UInt64) -> [Action] {
        [.announce(.typing(chat: chat, user: user, contact: contact))] + startTyping(chat: chat, user: user, contact: contact, now: now)
    }

    /// `sender`'s message in `chat` is committed: they are no longer typing
    /// there. Shown with the message, whose views are built anew anyway.
    package mutating func messageSent(in chat: Int, by sender: Int) {
        typing[Typist(chat: chat, user: sender)] = nil
    }

    /// `user`'s last seen is in the feed (or was not news): they are shown as
    /// they are, with that time.
    package mutating func lastSeenRecorded(of user: Int, now: UInt64) -> [Action] {
        leaving[user] = nil
        return update(user, now: now, refresh: true)
    }

    /// This server stops: every user here leaves at `time` (or when their last
    /// stream closed, within the grace), as if their streams closed past the
    /// grace; the others are told, and those on no other server are recorded.
    package mutating func stopping(time: Int) -> [Action] {
        var actions: [Action] = []
        for user in usersHere {
            let at = closing[user]?.at ?? time
            let elsewhere = others.values.contains { $0.users.contains(user) }
            actions.append(.announce(.offline(user: user, lastSeen: elsewhere ? nil : at)))
            if !elsewhere { actions.append(.recordLastSeen(user: user, at: at)) }
        }
        streams = [:]
        closing = [:]
        return actions
    }

    /// The answers of the other servers may have been lost (the channel to
    /// them was down): asks them again.
    package func reconnected() -> [Action] {
        [.announce(.hello)] + hereList()
    }

    /// The passing of time: graces, lifetimes and typing that ended, and
    /// changes whose interval is over.
    package mutating func tick(now: UInt64, time: Int) -> [Action] {
        var actions: [Action] = []
        for (user, left) in closing where left.until <= now {
            closing[user] = nil
            let elsewhere = others.values.contains { $0.users.contains(user) }
            if !elsewhere { leave(user, now: now) }
            actions.append(.announce(.offline(user: user, lastSeen: elsewhere ? nil : left.at)))
            if !elsewhere { actions.append(.recordLastSeen(user: user, at: left.at)) }
            actions += update(user, now: now)
        }
        for (name, other) in others where other.heardAt + settings.serverLifetime <= now {
            others[name] = nil
            actions.append(.serverGone(name: name, users: other.users.count))
            // The first of the servers left writes; the others wait for it.
            let writes = (Array(others.keys) + [server]).min() == server
            for user in other.users.sorted() where !isOnlineAnywhere(user) {
                leave(user, now: now)
                if writes { actions.append(.recordLastSeen(user: user, at: other.heardAtTime)) }
            }
            for user in other.users.sorted() { actions += update(user, now: now) }
        }
        for (user, until) in leaving where until <= now {
            leaving[user] = nil
            actions += update(user, now: now)
        }
        for (typist, entry) in typing where entry.until <= now {
            typing[typist] = nil
            actions.append(.showTyping(chat: typist.chat, user: typist.user, contact: entry.contact))
        }
        for (user, at) in lastShown where at + settings.showInterval <= now { lastShown[user] = nil }
        for user in due.keys.sorted() where lastShown[user] == nil {
            let refresh = due.removeValue(forKey: user) ?? false
            actions += update(user, now: now, refresh: refresh)
        }
        nextDue = earliestDue()
        return actions
    }

    /// When the next of what `tick` looks at ends, gone over whole once a tick.
    private func earliestDue() -> UInt64 {
        let ends = [closing.values.lazy.map(\.until).min(),
                    others.values.lazy.map { $0.heardAt + settings.serverLifetime }.min(),
                    leaving.values.min(),
                    typing.values.lazy.map(\.until).min(),
                    lastShown.values.min().map { $0 + settings.showInterval }]
        return ends.compactMap { $0 }.min() ?? .max
    }

    /// Something ends at `time`: `tick` is due then at the latest.
    private mutating func ends(at time: UInt64) {
        nextDue = min(nextDue, time)
    }

    /// `user`'s last seen is being recorded: they stay online until it is in the feed, or a server lifetime.
    private mutating func leave(_ user: Int, now: UInt64) {
        leaving[user] = now + settings.serverLifetime
        ends(at: now + settings.serverLifetime)
    }

    // MARK: Working it out

    private func isOnlineAnywhere(_ user: Int) -> Bool {
        alwaysOnline.contains(user) || streams[user] != nil || closing[user] != nil || leaving[user] != nil
            || others.values.contains { $0.users.contains(user) }
    }

    /// Shows `user` as they are now, or once their interval is over; with
    /// `refresh`, also when only their last seen changed.
    private mutating func update(_ user: Int, now: UInt64, refresh: Bool = false) -> [Action] {
        let refresh = refresh || due[user] == true
        guard refresh || isOnlineAnywhere(user) != shown.contains(user) else {
            due[user] = nil
            return []
        }
        guard lastShown[user] == nil else {
            due[user] = refresh
            return []
        }
        due[user] = nil
        return show(user, now: now)
    }

    private mutating func show(_ user: Int, now: UInt64) -> [Action] {
        if isOnlineAnywhere(user) { shown.insert(user) } else { shown.remove(user) }
        lastShown[user] = now
        ends(at: now + settings.showInterval)
        return [.show(user: user)]
    }

    private mutating func startTyping(chat: Int, user: Int, contact: Int, now: UInt64) -> [Action] {
        let typist = Typist(chat: chat, user: user)
        let started = typing[typist] == nil
        typing[typist] = Typing(contact: contact, until: now + settings.typingDuration)
        ends(at: now + settings.typingDuration)
        return started ? [.showTyping(chat: chat, user: user, contact: contact)] : []
    }

    /// Who is online here, for the others, in parts that fit a signal.
    private func hereList() -> [Action] {
        let users = usersHere
        guard !users.isEmpty else { return [.announce(.here(users: [], replacing: true))] }
        return stride(from: 0, to: users.count, by: Self.usersPerSignal).map { start in
            .announce(.here(users: Array(users[start..<min(start + Self.usersPerSignal, users.count)]), replacing: start == 0))
        }
    }

    /// Users one `here` signal lists at most: 500 ids of up to 12 digits fit
    /// PostgreSQL's 8,000 bytes of a notification.
    package static let usersPerSignal = 500
}
