import Logging
import Synchronization
import TailorDomain
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews

/// Follows the change feed of a PostgreSQL database that several servers
/// write: reads its entries past the last one applied, strictly in position
/// order, and hands each to the handler, this server's own commits included.
///
/// It runs on a thread of its own with a connection of its own, which LISTENs
/// for the notification each commit sends. The table is the truth; a
/// notification wakes it, and carries its entry when the entry is small (the
/// most): the entry at the position right after the last one applied needs
/// no read, whether the writer handed it over (a commit here) or its
/// notification carried it (another server's). Entries known past a missing
/// position wait for it: its commit is under way and its notification comes
/// soon; after `gapPause` the feed is read, and a position whose commit was
/// undone is given up once that is known (`FeedGaps`). An entry too large to
/// carry is read at once; a notification missed is made up for at the latest
/// after `pollInterval`, when it reads anyway. When the connection fails (the
/// database restarts) it opens another after a growing pause, and reads on
/// from where it was. Another server's entry that touches no user served
/// here is passed over (`ServedUsers`, `FeedFollower+Applying`).
///
/// On a bus that routes commits by interest (`onBus`) the notifications are
/// the bus's: an entry whole where it touches a user served here, else its
/// stub (`BusWire`), which the bus keeps until the follower's next turn
/// (`FeedFollower+News`). A stub's entry is passed over, or read where its
/// user came to be served meanwhile; a position missing before other
/// servers' entries is waited for rather than read at once, since stubs
/// come a few milliseconds late (one before this server's own commit, or a
/// position a request waits for, is read at once as ever). The feed is then
/// read at a turn only where the bus may have lost something (`BusTurns`).
package final class FeedFollower: Sendable {
    private let url: String
    let handler: any FeedHandler
    let progress: FeedProgress
    let stopping = Atomic<Bool>(false)
    /// Ends the follower's wait at once: a commit here, or the stop. The
    /// writer may still commit after the stop.
    let wake: WakeSignal
    let failures: ThrottledLog
    let latest = Atomic<Int>(0)
    let readCount = Atomic<Int>(0)
    let applyCount = Atomic<Int>(0)
    let passedOverCount = Atomic<Int>(0)
    let entriesReadCount = Atomic<Int>(0)
    let bodiesHeardCount = Atomic<Int>(0)
    let stubsHeardCount = Atomic<Int>(0)
    /// The users this server serves: an entry that touches none of them is passed over.
    let served: ServedUsers
    /// This server's own commits not yet applied, in position order: their
    /// changes are taken from here rather than decoded again from the feed
    /// (decoding was about a tenth of this thread's time). What the feed holds
    /// at those positions is the encoding of the very same changes. Handed
    /// over by the writer's thread, taken by the follower's.
    let writtenHere = Mutex<[FeedEntry]>([])
    /// Told of the presence signals this follower's connection hears for
    /// presence (`PresenceChannel.hear`), when it listens for them too: one
    /// listening connection a server rather than two halves the wake-ups of
    /// PostgreSQL's backends at every commit.
    let presenceHeard: (@Sendable (ChannelNews) -> Void)?
    /// This server, as the notifications of its own commits name it: those
    /// are no reason to read, since the writer hands their entries over.
    package let origin = String(UInt64.random(in: 1...UInt64.max), radix: 36)

    /// Notifications heard on the bus (`heardOnBus`), put here by the bus
    /// client's thread and taken by the follower's, hence the lock: the same
    /// as PostgreSQL's, read the same way.
    let fromBus = Mutex<[String]>([])
    /// What the bus keeps until the follower takes it (`takesFromBus`).
    let queuedOnBus = WiredLater<@Sendable (_ each: (UnsafeRawBufferPointer) -> Void) -> Void>()
    /// Whether the bus is up now (`asksWhetherBusIsUp`): while it is away the feed is read as off it.
    let busIsUp = WiredLater<@Sendable () -> Bool>()
    /// Whether the follower waits for positions missing before entries it
    /// knows (its own, or carried): it then looks for stubs often (`stubLook`).
    let waitsForPositions = Atomic<Bool>(false)
    /// The latest position a request here waits for (`FeedProgress.whenWaitBegins`):
    /// committed elsewhere, so read for at once (`News.awaited`).
    let awaited = Atomic<Int>(0)

    /// Added to the connection's application name.
    package static let applicationNameSuffix = "-feed"

    /// The time between reads of the feed when no notification came (on
    /// the bus, its turns say: `BusTurns`).
    package static let pollInterval: Duration = .milliseconds(250)
    /// Entries read and applied at once.
    static let batchSize = 500
    /// Carried entries held at most while a position before them is missing:
    /// past it, the rest are read.
    static let carriedAtMost = 10_000

    /// How long a position missing is waited for at most (`FeedGaps`).
    let gapPatience: Duration
    /// Whether the other servers' commits come on the bus, each told to this
    /// server whole or by its stub: a position missing before their entries
    /// is then waited for (`gapPause`) rather than read at once, since on a
    /// bus that routes commits by interest nearly every entry has positions
    /// before it that come only by stub.
    let onBus: Bool

    /// Follows from where `progress` says this server is.
    package init(url: String, handler: any FeedHandler, progress: FeedProgress, served: ServedUsers, gapPatience: Duration, onBus: Bool = false,
                 presenceHeard: (@Sendable (ChannelNews) -> Void)? = nil, logger: Logger) throws {
        self.served = served
        self.onBus = onBus
        self.url = url
        self.gapPatience = gapPatience
        self.presenceHeard = presenceHeard
        self.handler = handler
        self.progress = progress
        wake = try WakeSignal()
        failures = ThrottledLog(logger: logger, level: .error)
        progress.whenWaitBegins { [weak self] position in
            self?.awaited.max(position, ordering: .relaxed)
            self?.wake.signal()
        }
    }

    /// Starts the follower's thread; the returned stop ends it and waits for it.
    package func start() -> @Sendable () -> Void {
        let thread = OwnThread(name: "feed") { self.run() }
        return { [self] in
            stopping.store(true, ordering: .releasing)
            wake.signal()
            thread.join()
            wake.close()
        }
    }

    /// The latest position the feed held when last read, applied or not.
    package var latestSeen: Int { latest.load(ordering: .relaxed) }

    /// How many times the feed was read.
    package var reads: Int { readCount.load(ordering: .relaxed) }

    /// How many times entries known without a read were applied, however many at once.
    package var applies: Int { applyCount.load(ordering: .relaxed) }

    /// How many entries were passed over: none of their users is served here.
    package var passedOver: Int { passedOverCount.load(ordering: .relaxed) }

    /// How many of other servers' entries were read from the feed, not carried by a notification.
    package var entriesRead: Int { entriesReadCount.load(ordering: .relaxed) }

    /// How many of other servers' entries came whole with their notification.
    package var bodiesHeard: Int { bodiesHeardCount.load(ordering: .relaxed) }

    /// How many of other servers' commits were heard of by their stub alone (the bus).
    package var stubsHeard: Int { stubsHeardCount.load(ordering: .relaxed) }

    /// This server committed `entry`: applies it with what other servers
    /// committed before it, then calls `answer`. Committed is committed: past
    /// `applyWait` (the database unreachable, say) `answer` is called all the
    /// same, rather than its sources held without end or told to try again.
    package func apply(committedHere entry: FeedEntry, then answer: @escaping @Sendable () -> Void) {
        progress.whenApplied(entry.position, committedHere: true, within: Self.applyWait) { _ in answer() }
        writtenHere.withLock { $0.append(entry) }
        wake.signal()
    }

    /// How long a commit of this server's waits to be applied before its
    /// sources are answered all the same.
    static let applyWait: Duration = .seconds(2)

    /// This server's own entry at `position`, if it wrote it; the entries
    /// before it are no longer needed (applied, or skipped by a start over).
    func takeWrittenHere(at position: Int) -> FeedEntry? {
        writtenHere.withLock { entries in
            let passed = entries.prefix { $0.position < position }.count
            entries.removeFirst(passed)
            guard entries.first?.position == position else { return nil }
            return entries.removeFirst()
        }
    }

    private func run() {
        ListeningConnection.keep(url: url, failing: "the change feed could not be read", log: { failures.log($0) }, wake: wake,
                                 isStopping: { stopping.load(ordering: .acquiring) },
                                 prepare: { connection in
                                     try Store.listenToFeed(on: connection, namedWith: Self.applicationNameSuffix, andToPresence: presenceHeard != nil)
                                     presenceHeard?(.listening)
                                 },
                                 session: { try follow(on: $0) })
    }

    /// Applies what is new, then waits for news, until told to stop.
    private func follow(on connection: PostgresConnection) throws {
        var readNeeded = true
        var nextPoll: UInt64 = 0
        // When a gap before known entries is read for, if its commit's notification has not filled it.
        var gapRead: UInt64?
        var gaps = FeedGaps(patience: gapPatience)
        // Other servers' entries their notifications carried, by position, not applied yet.
        var carried: [Int: Carried] = [:]
        var nextGraceLook = MonotonicClock.after(Self.graceLookInterval)
        var turns = BusTurns()
        while !stopping.load(ordering: .acquiring) {
            let now = MonotonicClock.now
            if readNeeded || now >= min(nextPoll, gapRead ?? .max) {
                var reads = readNeeded || !onBus || now >= gapRead ?? .max
                // What the bus left without waking this thread (stubs of users
                // not served here) first: the read then finds only what no one told.
                if !readNeeded, onBus {
                    _ = try takeNews(on: connection, carrying: &carried)
                    try applyKnown(on: connection, carried: &carried)
                }
                if onBus, now >= nextPoll {
                    let turn = turns.take(told: bodiesHeard + stubsHeard, connected: busIsUp.value?() ?? true, now: now)
                    reads = reads || turn.reads
                    nextPoll = turn.next
                }
                if reads { while try applyNext(on: connection, gaps: &gaps) {} }
                if !onBus { nextPoll = MonotonicClock.after(Self.pollInterval) }
                gapRead = nil
            }
            let news = try waitForNews(on: connection, until: min(nextPoll, gapRead ?? .max), carrying: &carried)
            try applyKnown(on: connection, carried: &carried)
            if MonotonicClock.now >= nextGraceLook {
                let ended = served.takeEnded()
                if !ended.isEmpty { handler.noLongerServed(ended, at: progress.applied) }
                nextGraceLook = MonotonicClock.after(Self.graceLookInterval)
            }
            let ownLeft = writtenHere.withLock { !$0.isEmpty }
            // Entries known past a missing position: the commit that took it is
            // under way, and its notification comes first; one undone never comes.
            if !carried.isEmpty || gaps.isWaiting || ownLeft {
                gapRead = gapRead ?? MonotonicClock.after(Self.gapPause)
            } else {
                gapRead = nil
            }
            waitsForPositions.store(gapRead != nil, ordering: .relaxed)
            switch news {
            // Carried entries left wait behind a position missing, which may be
            // committed and visible before its notification comes.
            case .notified(let needsRead): readNeeded = needsRead || (!onBus && !carried.isEmpty)
            // One left waits behind a position missing: another server's, whose
            // commit may be visible before its notification comes. Its sources
            // wait for it, on the bus too.
            case .committedHere: readNeeded = ownLeft
            // A request waits for a position not heard of: committed elsewhere, so read for.
            case .awaited: readNeeded = true
            // Whether the time is up for a read, or only for a turn on the bus, the next round says.
            case .timeUp: readNeeded = false
            }
        }
    }

    /// How often the follower looks for users whose grace ended, to let go
    /// of what is kept of them: the look goes over every user in their grace.
    static let graceLookInterval: Duration = .seconds(1)

    /// How long a missing position is waited for before the feed is read:
    /// longer than a commit takes to be heard, nearly always.
    static let gapPause: Duration = .milliseconds(20)
}
