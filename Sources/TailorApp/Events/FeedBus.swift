import Logging
import Synchronization
import TailorBus
import TailorFeed
import TailorLoop
import TailorStore
import TailorViews

/// The servers of one PostgreSQL database on a NATS bus (`--bus`), routing
/// each commit by interest: a writer sends it whole only to the servers
/// that serve one of its users (each says whom it serves: `ServerInterests`),
/// on each one's own subject, and to every server its stub, a few at a time
/// (`BusWire`; within 10 ms while other servers write, 250 ms while this
/// one writes alone: `StubPace`), so that a server that serves none of its
/// users pays next to nothing for it and one whose user it touches without
/// having been sent it (it came to serve them as the commit was made) reads
/// it from PostgreSQL.
/// Commits that touch anyone go whole to everyone, on the schema's subject.
/// Typing goes the same way (`sendTyping`): only to the servers that serve
/// its contact, each on its own subject, once each says it hears it there.
///
/// PostgreSQL then signals no listening server at each commit, which costs
/// it at every server added; it still notifies while a server that is not on
/// the bus may follow the feed (presence's heartbeats tell:
/// `PresenceSignal.onBus`). Likewise, while a server on the bus has not said
/// it routes by interest (`PresenceSignal.routesByInterest`: one of an
/// earlier version), every commit goes whole to everyone, as that server expects.
final class FeedBus: Sendable {
    let bus: NatsBus
    private let subjects: Subjects
    private let origin: String
    private let served: ServedUsers
    private let everyServerIsOnBus: @Sendable () -> Bool
    private let everyServerRoutes: @Sendable () -> Bool
    /// Whose timers say when stubs and interest are due; they are sent on
    /// `sender`, since a publish may block (a connection that died silently,
    /// until its pings fail) and a loop must never wait.
    private let timers: EventLoop
    private let sender = SerialThread(name: "bus")
    /// Whom the other servers serve, told on the interest subject by NATS's threads, read by the writer's.
    private let interests = Mutex(ServerInterests(refresh: MonotonicClock.nanoseconds(FeedBus.interestRefresh)))
    /// The stubs of this server's commits not yet sent everyone: added by the writer, sent by `sender`.
    private let untold = Gathering<CommitStub>()
    /// Users who came to be served here and are not yet told: added where
    /// their stream or request comes, told by `sender`.
    private let newlyServed = Gathering<Int>()
    private let stopping = Atomic<Bool>(false)
    /// How soon the stubs go: soon while other servers write, less often while this one writes alone.
    private let pace = Mutex(StubPace())
    /// Other servers' commits this server's follower has heard of or read so far.
    private let othersSeen: @Sendable () -> Int
    /// How often a server says all the users it serves.
    static let interestRefresh: Duration = .seconds(2)
    /// How long a user who came to be served waits to be told with others
    /// (many streams open at once as a server starts, or its clients come back).
    static let interestPause: Duration = .milliseconds(5)

    private struct Subjects {
        let everyone: String
        let stubs: String
        let interest: String
        let serverPrefix: String
        let typingHearers: String
        let typingPrefix: String

        func server(_ origin: some StringProtocol) -> String { serverPrefix + origin }
        func typing(to origin: some StringProtocol) -> String { typingPrefix + origin }
    }

    /// The bus of `configuration`, subscribed for `follower`; nil without one.
    static func connect(configuration: TailorConfiguration, schema: String, follower: FeedFollower, served: ServedUsers,
                        everyServerIsOnBus: @escaping @Sendable () -> Bool, everyServerRoutes: @escaping @Sendable () -> Bool,
                        typingHeard: @escaping @Sendable (String) -> Void, timers: EventLoop, logger: Logger) throws -> FeedBus? {
        guard !configuration.bus.isEmpty else { return nil }
        let bus = try NatsBus(urls: configuration.bus, name: "tailor-\(follower.origin)", logger: logger)
        let feedBus = FeedBus(bus: bus, schema: schema, origin: follower.origin, served: served, everyServerIsOnBus: everyServerIsOnBus,
                              everyServerRoutes: everyServerRoutes, othersSeen: { follower.bodiesHeard + follower.stubsHeard + follower.entriesRead },
                              timers: timers)
        try feedBus.subscribe(follower, typingHeard: typingHeard)
        return feedBus
    }

    private init(bus: NatsBus, schema: String, origin: String, served: ServedUsers, everyServerIsOnBus: @escaping @Sendable () -> Bool,
                 everyServerRoutes: @escaping @Sendable () -> Bool, othersSeen: @escaping @Sendable () -> Int, timers: EventLoop) {
        self.bus = bus
        self.othersSeen = othersSeen
        self.everyServerIsOnBus = everyServerIsOnBus
        let everyone = Self.subject(forSchema: schema)
        subjects = Subjects(everyone: everyone, stubs: everyone + ".stubs", interest: everyone + ".interest", serverPrefix: everyone + ".to.",
                            typingHearers: everyone + ".typing.hearers", typingPrefix: everyone + ".typing.to.")
        self.origin = origin
        self.served = served
        self.everyServerRoutes = everyServerRoutes
        self.timers = timers
    }

    private func subscribe(_ follower: FeedFollower, typingHeard: @escaping @Sendable (String) -> Void) throws {
        for subject in [subjects.everyone, subjects.server(origin)] {
            try bus.subscribe(to: subject) { follower.heardOnBus($0) }
        }
        let stubs = try bus.queue(subjects.stubs)
        follower.takesFromBus { stubs.take($0) }
        follower.asksWhetherBusIsUp { [bus] in bus.isConnected }
        try bus.subscribe(to: subjects.interest) { [self] bytes in heardInterest(String(decoding: bytes, as: UTF8.self)) }
        try bus.subscribe(to: subjects.typing(to: origin)) { typingHeard(String(decoding: $0, as: UTF8.self)) }
        try bus.subscribe(to: subjects.typingHearers) { [self] bytes in heardHearingTyping(String(decoding: bytes, as: UTF8.self)) }
        served.whenNewlyServed { [self] user in tellServed(user) }
        tellInterest()
    }

    /// How the writer announces its commits here. PostgreSQL notifies also
    /// while the bus is away: the others hear of commits at once all the same.
    var announcement: FeedAnnouncement {
        FeedAnnouncement(notifiesPostgres: { [self] in !bus.isConnected || !everyServerIsOnBus() }, publish: { [self] in publish($0) })
    }

    /// Stops telling what this server serves, and lets go of the bus once
    /// what the sender has begun is sent: nothing is sent after.
    func close() {
        stopping.store(true, ordering: .relaxed)
        sender.sync {}
        bus.close()
    }

    /// `commit` as the writer announces it, on the writer's thread: whole to
    /// everyone when it touches anyone or a server does not route; else
    /// whole to the servers that serve its users, with the stubs not yet
    /// sent everyone, and its own stub kept to go to everyone soon.
    private func publish(_ commit: AnnouncedCommit) {
        guard let stub = commit.stub, everyServerRoutes() else {
            bus.publish(BusWire.toEveryone(commit), to: subjects.everyone)
            return
        }
        let servers = interests.withLock { $0.servers(servingAnyOf: stub.users) }
        let (told, first) = untold.add(stub)
        for server in servers where server != origin {
            bus.publish(BusWire.toOne(commit, told: told), to: subjects.server(server))
        }
        let pace = pace.withLock { $0.pace(othersSeen: othersSeen(), now: MonotonicClock.now) }
        if told.count + 1 >= pace.atMost {
            sendStubs()
        } else if first {
            sendSoon(after: pace.pause) { $0.sendStubs() }
        }
    }

    /// Sends everyone the stubs not yet sent.
    private func sendStubs() {
        let stubs = untold.take()
        if !stubs.isEmpty { bus.publish(BusWire.stubs(from: origin, stubs), to: subjects.stubs) }
    }

    /// Says soon that this server serves `user` too.
    private func tellServed(_ user: Int) {
        guard newlyServed.add(user).first else { return }
        sendSoon(after: Self.interestPause) { feedBus in
            feedBus.bus.publish(BusWire.interest(of: feedBus.origin, feedBus.newlyServed.take(), replacing: false), to: feedBus.subjects.interest)
        }
    }

    /// Runs `send` on `sender` after `pause`, unless the bus is closed by then.
    private func sendSoon(after pause: Duration, _ send: @escaping @Sendable (FeedBus) -> Void) {
        timers.after(seconds: pause.inSeconds) { [self] in
            sender.async { [self] in
                guard !stopping.load(ordering: .relaxed) else { return }
                send(self)
            }
        }
    }

    /// Says all the users this server serves, and again every `interestRefresh`.
    private func tellInterest() {
        guard !stopping.load(ordering: .relaxed) else { return }
        bus.publish(BusWire.interest(of: origin, served.users, replacing: true), to: subjects.interest)
        bus.publish(origin, to: subjects.typingHearers)
        interests.withLock { $0.forgetSilent(at: MonotonicClock.now) }
        sendSoon(after: Self.interestRefresh) { $0.tellInterest() }
    }

    private func heardInterest(_ message: String) {
        guard let (server, users, replacing) = BusWire.parseInterest(message), server != origin else { return }
        let now = MonotonicClock.now
        interests.withLock { interests in
            if replacing {
                interests.replaced(users, by: String(server), at: now)
            } else {
                interests.added(users, by: String(server), at: now)
            }
        }
    }

    private func heardHearingTyping(_ server: String) {
        guard server != origin else { return }
        let now = MonotonicClock.now
        interests.withLock { $0.hearsTyping(server, at: now) }
    }

    /// Sends a typing signal's `payload` to the servers that serve
    /// `contact`, on the bus (none when no other does); false when
    /// PostgreSQL must tell every server instead: the bus is away, a server
    /// not on it may serve them, or one of theirs does not hear typing here.
    func sendTyping(_ payload: String, to contact: Int) -> Bool {
        guard bus.isConnected, everyServerIsOnBus(), let targets = interests.withLock({ $0.typingTargets(for: contact) }) else { return false }
        sender.async { [self] in
            guard !stopping.load(ordering: .relaxed) else { return }
            for target in targets { bus.publish(payload, to: subjects.typing(to: target)) }
        }
        return true
    }

    /// Other servers heard saying they hear typing on the bus.
    var typingHearers: Int { interests.withLock { $0.typingHearers } }

    /// Whether commits go by interest now, rather than whole to everyone.
    var routesByInterest: Bool { everyServerRoutes() }

    /// Other servers heard telling whom they serve.
    var interestedServers: Int { interests.withLock { $0.count } }

    /// `tailor.feed.` and the schema, whose characters other than letters,
    /// digits, `-` and `_` (a `.` splits a NATS subject) are written `_`.
    static func subject(forSchema schema: String) -> String {
        "tailor.feed." + String(schema.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    }
}

/// What is gathered to be sent together, from any thread: the first added
/// since the last `take` schedules the sending (`FeedBus.sendSoon`), which
/// takes them all. Under a lock, since those who add and the one who sends
/// are on different threads.
private final class Gathering<Item: Sendable>: Sendable {
    private let state = Mutex<(items: [Item], scheduled: Bool)>(([], false))

    /// Adds `item`: the items gathered before it, and whether it is the first to be sent next.
    func add(_ item: Item) -> (before: [Item], first: Bool) {
        state.withLock { state in
            let before = state.items
            state.items.append(item)
            defer { state.scheduled = true }
            return (before, !state.scheduled)
        }
    }

    /// The items gathered, leaving none.
    func take() -> [Item] {
        state.withLock { state in
            defer { state = ([], false) }
            return state.items
        }
    }
}
