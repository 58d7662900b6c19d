import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorStore
import TailorStreams
import TailorViews

/// Keeps `Presence` going: tells it of streams that open and close, typing,
/// messages and the other servers' signals, and does what it asks: sends
/// signals to the other servers (`PresenceChannel`, on PostgreSQL), hands a
/// last seen to be recorded (`LastSeenRecorder`), and builds again the views of the
/// contacts of someone whose presence changed, through the cache and the
/// lanes, as any change is. Its ticks (`PresenceTicks`) end graces,
/// typing and servers not heard from, and send this server's heartbeat.
package final class PresenceDriver: Sendable {
    private let presence: Presence
    /// The other servers' signals, on PostgreSQL.
    package let channel: PresenceChannel?
    private let database: Database
    private let directory: ChatDirectory
    private let cache: ViewCache
    private let streams: EventStreams
    private let server: String
    private let now: @Sendable () -> Int
    private let failures: ThrottledLog
    private let logger: Logger
    /// Where the driver's tasks run.
    private let executor: EventLoop
    /// Last seens to record, for `LastSeenRecorder`: the router it records
    /// through is made after the feed's handler, which tells this driver of the feed.
    package let lastSeenWrites: AsyncStream<LastSeenWrite>
    private let lastSeenIn: AsyncStream<LastSeenWrite>.Continuation

    /// Whether this server is on the bus, and says so with its heartbeats.
    private let onBus: Bool
    /// Sends a typing signal's payload to the servers of its contact on the
    /// bus, when it can (true); else the channel tells every server. Set
    /// once the bus is connected, which is made after this driver.
    package typealias TypingRoute = @Sendable (_ payload: String, _ contact: Int) -> Bool
    private let typingRoute = WiredLater<TypingRoute>()
    /// When this driver was made: for a server lifetime after it, servers
    /// not heard from yet may be of any kind.
    private let madeAt = MonotonicClock.now

    /// The time between two ticks at least: graces, typing and lifetimes end within it of their time.
    static let tickSpacing: Duration = .milliseconds(200)
    /// When presence is ticked.
    private let ticks: PresenceTicks
    /// When this server's next heartbeat is due (MonotonicClock), for the ticks.
    private let nextHeartbeat = Atomic<UInt64>(0)

    /// A user's last seen, to be recorded.
    package struct LastSeenWrite: Sendable {
        package let user: Int
        package let time: Int
        /// Said as the server stops: once written, nothing is to be shown anew.
        package let isGoodbye: Bool
    }

    package init(presence: Presence, channel: PresenceChannel?, onBus: Bool = false, database: Database, directory: ChatDirectory, cache: ViewCache,
                 streams: EventStreams, executor: EventLoop, now: @escaping @Sendable () -> Int, logger: Logger) {
        self.presence = presence
        self.onBus = onBus
        self.executor = executor
        ticks = PresenceTicks(spacing: Self.tickSpacing, on: executor)
        (lastSeenWrites, lastSeenIn) = AsyncStream.makeStream()
        self.channel = channel
        self.database = database
        self.directory = directory
        self.cache = cache
        self.streams = streams
        server = presence.change { $0.server }
        self.now = now
        failures = ThrottledLog(logger: logger)
        self.logger = logger
    }

    /// Starts following the streams, the ticks and the channel. The
    /// returned stop ends the ticks and says goodbye (`sayGoodbye`), then
    /// closes the channel.
    package func start() -> @Sendable () -> Void {
        let listening = Task(executorPreference: executor) { [self] in
            for await change in streams.streamChanges {
                if change.opened { streamOpened(by: change.user) } else { streamClosed(by: change.user) }
            }
        }
        let stopChannel = channel?.start(heard: { [self] payload in heard(payload) },
                                         connected: { [self] in perform(change { $0.reconnected() }) })
        ticks.start { [self] in tick() }
        return { [self] in
            ticks.stop()
            listening.cancel()
            sayGoodbye()
            stopChannel?()
        }
    }

    /// The users here are told gone to the other servers, and their last
    /// seen handed to the recorder, which stops after this driver and waits
    /// for those writes.
    private func sayGoodbye() {
        var others: [PresenceTracker.Action] = []
        for action in presence.change({ $0.stopping(time: now()) }) {
            if case .recordLastSeen(let user, let time) = action {
                lastSeenIn.yield(LastSeenWrite(user: user, time: time, isGoodbye: true))
            } else {
                others.append(action)
            }
        }
        perform(others)
        lastSeenIn.finish()
    }

    /// The other servers heard from within their lifetime: on PostgreSQL,
    /// the others following the database (`PresenceChannel`).
    package var otherServers: Int {
        presence.change { $0.otherServerCount }
    }

    /// Whether every server following the feed hears commits on the bus, as
    /// far as this one knows: every other heard from said so, and one
    /// server lifetime has passed since this one started, in which a server
    /// of any kind would have been heard from.
    package var everyServerIsOnBus: Bool {
        everyServerSaid(\.everyOtherServerIsOnBus)
    }

    /// Whether every server on the bus routes commits by interest, as far as
    /// this one knows, the same way.
    package var everyServerRoutesByInterest: Bool {
        everyServerSaid(\.everyOtherServerRoutesByInterest)
    }

    /// Whether every other server heard from said so (`said`), and one
    /// server lifetime has passed since this one started.
    private func everyServerSaid(_ said: KeyPath<PresenceTracker, Bool>) -> Bool {
        presence.change { tracker in
            MonotonicClock.now - madeAt >= tracker.settings.serverLifetime && tracker[keyPath: said]
        }
    }

    /// Users shown online on any server, and the other servers heard from, for `/metrics`.
    package var counts: (usersOnline: Int, otherServers: Int) {
        presence.change { ($0.shownOnlineCount, $0.otherServerCount) }
    }

    // MARK: What happens

    /// Changes presence with an input, and has it ticked by when what the input began is due.
    private func change(_ input: (inout PresenceTracker) -> [PresenceTracker.Action]) -> [PresenceTracker.Action] {
        let (actions, due) = presence.change { tracker in (input(&tracker), tracker.nextDue) }
        ticks.due(at: due)
        return actions
    }

    /// What is due in presence, and this server's heartbeat when due;
    /// returns when the next tick is due.
    private func tick() -> UInt64 {
        let now = MonotonicClock.now
        let (actions, due) = presence.change { tracker in (tracker.tick(now: now, time: self.now()), tracker.nextDue) }
        perform(actions)
        guard channel != nil else { return due }
        var heartbeat = nextHeartbeat.load(ordering: .relaxed)
        if now >= heartbeat {
            perform([.announce(.heartbeat)] + (onBus ? [.announce(.onBus), .announce(.routesByInterest)] : []))
            heartbeat = now + presence.change { $0.settings.heartbeatInterval }
            nextHeartbeat.store(heartbeat, ordering: .relaxed)
        }
        return min(due, heartbeat)
    }

    private func streamOpened(by user: Int) {
        perform(change { $0.streamOpened(by: user, now: MonotonicClock.now) })
    }

    private func streamClosed(by user: Int) {
        perform(change { $0.streamClosed(by: user, now: MonotonicClock.now, time: now()) })
    }

    package func typed(in chat: Int, by user: Int, contact: Int) {
        perform(change { $0.typed(in: chat, by: user, contact: contact, now: MonotonicClock.now) })
    }

    /// From the feed: a message's sender no longer types in its chat.
    package func messageSent(in chat: Int, by sender: Int) {
        presence.change { $0.messageSent(in: chat, by: sender) }
    }

    /// From the feed: an account was disabled at `position`, and this server
    /// lets it in no more. The tool that disabled it waits for every server to say so.
    package func confirmApplied(_ position: Int) {
        perform([.announce(.applied(position: position))])
    }

    /// The chats of a user with the contact in each, read where the caller
    /// reads (the feed, in its snapshot); nil when they could not be read.
    package typealias ContactsReader = (_ user: Int) -> [(chat: Int, contact: Int)]?

    /// From the feed: `user`'s last seen is recorded, on this server or
    /// another. The contacts' views it changes are dropped before the feed
    /// goes on, read through `contacts` when the kept chats do not know them.
    package func lastSeenCommitted(of user: Int, contacts: @escaping ContactsReader) {
        perform(change { $0.lastSeenRecorded(of: user, now: MonotonicClock.now) }, contacts: contacts)
    }

    /// Typing goes on the bus to its contact's servers from now on, when `route` can send it.
    package func routeTyping(through route: @escaping TypingRoute) {
        typingRoute.wire(route)
    }

    private func heard(_ payload: String) {
        guard let (signal, sender) = PresenceSignal.read(payload) else {
            failures.log("a presence signal this server cannot read was passed over: \(payload.prefix(80))")
            return
        }
        perform(change { $0.heard(signal, from: sender, now: MonotonicClock.now, time: now()) })
    }

    // MARK: What it asks for

    /// Does what presence asked; a user to show is shown through `contacts`
    /// when given and the kept chats do not know them, else after a read of its own.
    /// The signals to announce go to the channel together.
    private func perform(_ actions: [PresenceTracker.Action], contacts: ContactsReader? = nil) {
        var announced: [String] = []
        defer { channel?.send(announced) }
        for action in actions {
            switch action {
            case .announce(let signal):
                let payload = signal.payload(from: server)
                if case .typing(_, _, let contact) = signal, let route = typingRoute.value, route(payload, contact) { continue }
                announced.append(payload)
            case .recordLastSeen(let user, let time):
                recordLastSeen(of: user, at: time)
            case .show(let user):
                showContacts(of: user, contacts: contacts)
            case .showTyping(let chat, _, let contact):
                refresh([.chat(user: contact, id: chat), .chats(user: contact)])
            case .serverGone(let name, let users):
                logger.warning("the server \(name) was not heard from within --presence-lifetime: taken to be gone, with the \(users) users it had online")
            }
        }
    }

    /// Hands `user`'s last seen to the recorder; the feed brings it back to every server.
    private func recordLastSeen(of user: Int, at time: Int) {
        lastSeenIn.yield(LastSeenWrite(user: user, time: time, isGoodbye: false))
    }

    /// A last seen was not news, or could not be written: nothing comes back
    /// through the feed, and the user is shown as they are at once.
    package func lastSeenNotRecorded(of user: Int) {
        perform(change { $0.lastSeenRecorded(of: user, now: MonotonicClock.now) })
    }

    /// From the feed: `user`'s privacy setting changed: their contacts'
    /// screens and lists show their presence or stop, and theirs show their
    /// contacts' or stop; dropped before the feed goes on, so that a read
    /// after the write sees it, whether or not their chats are kept.
    package func visibilityChanged(of user: Int, contacts: @escaping ContactsReader) {
        showContacts(of: user, andTheirOwn: true, contacts: contacts)
    }

    /// Builds again the chat screens and lists that show `user` as a contact
    /// (and with `andTheirOwn`, `user`'s own): their chats from the kept
    /// chats, else through `contacts` at once, else read off the loop.
    private func showContacts(of user: Int, andTheirOwn: Bool = false, contacts read: ContactsReader? = nil) {
        func changes(_ contacts: [(chat: Int, contact: Int)]) -> Set<TopicChange> {
            var changes = Self.changes(showing: contacts)
            if andTheirOwn {
                changes.insert(.chats(user: user))
                for (chat, _) in contacts { changes.insert(.chat(user: user, id: chat)) }
            }
            return changes
        }
        if let contacts = directory.contacts(of: user) ?? read?(user) {
            refresh(changes(contacts))
            return
        }
        Task(executorPreference: executor) { [self] in
            let contacts: [(chat: Int, contact: Int)]
            do {
                contacts = try await database.readOffLoop { try $0.chatContacts(of: user) }
            } catch {
                failures.log("the contacts of user \(user) could not be read: their screens do not show that user's presence changed: \(error)")
                return
            }
            refresh(changes(contacts))
        }
    }

    /// The chat screens and lists of `contacts`, which show the user whose chats they are.
    private static func changes(showing contacts: [(chat: Int, contact: Int)]) -> Set<TopicChange> {
        Set(contacts.flatMap { [TopicChange.chat(user: $0.contact, id: $0.chat), .chats(user: $0.contact)] })
    }

    /// Drops the cached versions of `changes` and sends the followed ones
    /// anew, in their lanes' order.
    private func refresh(_ changes: Set<TopicChange>) {
        guard !changes.isEmpty else { return }
        _ = cache.apply(changes)
        streams.rebuild(changes)
    }
}
