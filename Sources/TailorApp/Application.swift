import Dispatch
import Glibc
import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorPush
import TailorStore
import TailorStreams
import TailorViews

/// Tailor assembled: the database, the event path (router → store → handler →
/// cache), the routes, the static files, and the HTTP server that serves them.
public final class Application: Sendable {
    public let configuration: TailorConfiguration
    private let server: HTTPServer
    private let database: Database
    private let events: EventRouter
    private let follower: FeedFollower?
    private let midnight: Task<Void, Never>
    private let heartbeat: Task<Void, Never>
    private let memoryUpkeep: MemoryUpkeepThread
    private let streams: EventStreams
    private let logger: Logger
    private let shutdownState = ShutdownState()
    private let accessLog: AccessLog?
    /// Messages for the bot, from the handler; finished when the server stops.
    private let toBot: AsyncStream<Chatbot.Heard>.Continuation
    private let chatbotAnswers: Task<Void, Never>
    private let pushDelivery: PushDelivery
    private let pushHandOff: PushHandOff
    private let presence: PresenceDriver
    private let credentials: CredentialCache
    /// Every route's pattern (`/api/chats/{id}`), as registered, with its methods.
    public let routeTable: [(pattern: String, methods: [HTTPMethod])]

    public init(configuration: TailorConfiguration, logger: Logger = Logger(label: "tailor")) throws {
        self.configuration = configuration
        self.logger = logger
        guard let zone = TimeZoneRules.named(configuration.timeZone) else {
            throw ConfigurationError("unknown time zone \(configuration.timeZone): use an IANA name such as Europe/Berlin "
                + "(the tz database in /usr/share/zoneinfo comes with Debian's tzdata package)")
        }
        let dates = DateText(zone: zone)
        let now: @Sendable () -> Int = {
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
        }

        let metrics = ServerMetrics(startTime: Double(now()) / 1000)
        let (database, writer) = try Database.open(configuration.database, synchronous: configuration.synchronous)
        self.database = database
        guard let bot = try Store(writer).user(named: User.botName) else { throw ConfigurationError("the database has no bot user") }
        let (botMessages, toBot) = AsyncStream.makeStream(of: Chatbot.Heard.self, bufferingPolicy: .bufferingNewest(Chatbot.maxWaiting))
        self.toBot = toBot
        let botID = bot.id
        let cache = ViewCache(budgetBytes: configuration.viewCacheBudget)
        let directory = ChatDirectory()
        let credentials = CredentialCache()
        self.credentials = credentials
        let position = try Store(writer).lastPosition()
        let presence = Presence(PresenceTracker(server: String(UInt64.random(in: 1...UInt64.max), radix: 36),
                                                settings: configuration.presenceSettings, alwaysOnline: [botID]))
        let views = ViewModelBuilder(database: database, cache: cache, directory: directory, presence: presence, dates: dates, now: now)
        let memory = StreamMemory(budget: configuration.streamBudget, budgetPerUser: configuration.streamBudgetPerUser)
        // The loops serve the connections and build their users' view models:
        // a publisher lane on each (see `PublisherLane`).
        let loops = try EventLoopGroup(loopCount: configuration.server.loopCount)
        streams = EventStreams(views: views, position: Int64(position), loops: loops.loops, memory: memory, logger: logger)
        // Other servers write a PostgreSQL database too: their commits come
        // through the feed's follower, this server's own as well, and their
        // users' presence through notifications.
        let sharedURL: String? = if case .postgres(let url) = configuration.database { url } else { nil }
        let presenceDriver = PresenceDriver(presence: presence, channel: try sharedURL.map { try PresenceChannel(url: $0, logger: logger) },
                                            database: database, directory: directory, cache: cache, streams: streams, now: now,
                                            logger: logger)
        self.presence = presenceDriver
        let pushKey = try Self.pushKey(configuration.push, store: Store(writer))
        // Made once the writer is; the feed applies nothing before the server
        // starts. Let go at shutdown: the delivery holds the writer, which holds the feed.
        let pushes = PushHandOff()
        pushHandOff = pushes
        let handler = EventHandler(cache: cache, directory: directory, credentials: credentials, streams: streams, presence: presenceDriver,
                                   logger: logger,
                                   onMessage: { message, chat in
                                       if Chatbot.isForBot(message, in: chat, botID: botID) { toBot.yield(Chatbot.Heard(message: message, chat: chat)) }
                                   },
                                   onPushesQueued: { message, chat, recipient in
                                       pushes.delivery.withLock { $0 }?.queued(message: message, chat: chat, recipient: recipient)
                                   })
        let progress = FeedProgress(applied: position, isShared: sharedURL != nil)
        follower = try sharedURL.map { try FeedFollower(url: $0, handler: handler, progress: progress, logger: logger) }
        let feed: FeedApplier = if let follower { .follower(follower) }
            else { .ownThread(CommitFollower(database: database, handler: handler, progress: progress, logger: logger)) }
        events = try EventRouter(writer: writer, now: now, quotas: configuration.quotas, pushDelay: configuration.push.delay,
                             feedWindow: configuration.feedWindow, commitDelay: configuration.commitDelay, feed: feed,
                             observeBatch: { metrics.observeBatch(events: $0, nanoseconds: $1) })
        let auth = Authenticator(database: database, events: events, credentials: credentials, now: now, writeLimit: configuration.writeLimit,
                                 accountLimit: configuration.accountLimit,
                                 passwords: PasswordGate(hasher: PasswordHasher(limits: configuration.passwordQueue),
                                                         perClient: configuration.passwordAttemptLimit, perName: configuration.passwordNameLimit,
                                                         logger: logger),
                                 sessionIdleTime: configuration.sessionIdleTime, logger: logger)
        let context = AppContext(events: events, views: views, auth: auth, presence: presenceDriver)

        let readYourWrites = ReadYourWrites(progress: progress, database: database, maxWait: configuration.positionWait)
        var router = Router()
        HealthRoutes(events: events, shutdown: shutdownState).register(on: &router)
        OpenAPIDocument.register(on: &router)
        AccountRoutes(context: context).register(on: &router)
        ChatRoutes(context: context).register(on: &router)
        OrderRoutes(context: context).register(on: &router)
        EventStreamRoutes(context: context, streams: streams).register(on: &router)
        PushRoutes(context: context, key: pushKey, settings: configuration.push).register(on: &router)
        // Taken apart from self, which the closures below must not hold before it is whole.
        let streams = streams
        let follower = follower
        // The server is made with the routes: the route reads it once it is there.
        let madeServer = Mutex<HTTPServer?>(nil)
        MetricsRoutes(metrics: metrics) {
            let cacheCounts = cache.counts
            let checkpoints = database.checkpoints
            let process = ProcessProbe.current
            let presence = presenceDriver.counts
            return ServerMetrics.Sample(
                connections: madeServer.withLock { $0 }?.connectionCount ?? 0, streams: streams.subscriberCount,
                followedTopics: streams.followedTopicCount, streamHeldBytes: streams.memory.total, cacheBytes: cache.byteCount,
                feedApplied: progress.applied, feedLatestSeen: follower?.latestSeen ?? progress.applied, sqliteLogFrames: checkpoints.logFrames,
                usersOnline: presence.usersOnline, otherServers: presence.otherServers,
                totals: ServerMetrics.Totals(
                    eventsPublished: streams.eventsPublished, slowStreamsEnded: streams.memory.streamsEndedSlow,
                    cacheHits: cacheCounts.hits, cacheMisses: cacheCounts.misses,
                    checkpointsOnOwnThread: checkpoints.onOwnThread, checkpointsByWriter: checkpoints.byWriter,
                    feedReads: follower?.reads ?? 0),
                cpuSeconds: process.cpuSeconds, residentBytes: process.residentKiB.now * 1024,
                openFiles: process.openFiles)
        }.register(on: &router)
        var fallback: Router.Handler?
        if let folder = configuration.publicFolder {
            guard let files = StaticFiles(root: folder) else {
                throw ConfigurationError("the public folder \(folder) does not exist or is not a folder")
            }
            fallback = files.handler
        }
        routeTable = router.table
        let requests = metrics.requests(of: routeTable.map(\.pattern))
        let accessLog = try configuration.accessLog.map { try AccessLog(path: $0, now: now, logger: logger) }
        self.accessLog = accessLog
        server = try HTTPServer(
            configuration: configuration.server, group: loops,
            responder: HTTPResponder(router: router, fallback: fallback, admission: { await auth.refusal(for: $0) },
                                     answerForFailure: { APIError.answer(for: $0) },
                                     around: { request, handler in try await readYourWrites.handle(request, handler) },
                                     observe: { answered in
                                         requests.observe(route: answered.route, status: answered.status, nanoseconds: answered.nanoseconds)
                                         accessLog?.write(answered)
                                     },
                                     logsEachRequest: accessLog != nil,
                                     proxyTrust: ProxyTrust(proxies: configuration.trustedProxies),
                                     crossOrigin: CrossOrigin(origins: configuration.allowedOrigins),
                                     logger: logger),
            logger: logger)
        madeServer.withLock { [server] in $0 = server }
        pushDelivery = PushDelivery(events: events, streams: streams, key: pushKey, settings: configuration.push, metrics: metrics,
                                    now: now, executor: server.group.next(), logger: logger)
        pushes.delivery.withLock { [pushDelivery] in $0 = pushDelivery }
        let chatbot = Chatbot(botID: botID, delay: configuration.botDelay, router: events,
                              typing: { chat, contact in presenceDriver.typed(in: chat, by: botID, contact: contact) },
                              loops: server.group, logger: logger)
        chatbotAnswers = Task(executorPreference: server.group.next()) { await chatbot.answer(botMessages) }
        presenceDriver.start(recordingThrough: events, on: server.group.next())
        // Last, once everything that follows the feed is wired; before the
        // demo data, whose writes wait for it.
        follower?.start()

        // Date texts ("14:05" becomes "Yesterday") change at midnight, not on writes:
        // cached view models are dropped and followed ones sent anew.
        midnight = Task(executorPreference: server.group.next()) {
            while !Task.isCancelled {
                let wait = dates.millisecondsUntilMidnight(now: now())
                try? await Task.sleep(for: .milliseconds(wait + 10))
                if Task.isCancelled { return }
                cache.removeAll()
                streams.republishAll()
            }
        }
        let interval = configuration.heartbeat
        heartbeat = Task(executorPreference: server.group.next()) {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                streams.heartbeat()
            }
        }
        // Free memory goes back to the system after many connections close and
        // whenever the process grew by a step (see `MemoryUpkeep`).
        let server = server
        memoryUpkeep = MemoryUpkeepThread(interval: Self.memoryUpkeepInterval, openConnections: { server.connectionCount }, logger: logger)
    }

    /// The server's VAPID key: from the file given, else the one kept in the
    /// database, made at the first start.
    private static func pushKey(_ settings: PushSettings, store: Store) throws -> VAPIDKey {
        guard let path = settings.keyFile else {
            return try VAPIDKey(rawRepresentation: try store.keepPushKey(VAPIDKey().rawRepresentation))
        }
        guard let pem = SmallFile.read(path, limit: 64 * 1024) else { throw ConfigurationError("the VAPID key file \(path) cannot be read") }
        do {
            return try VAPIDKey(pem: String(decoding: pem, as: UTF8.self))
        } catch {
            throw ConfigurationError("the VAPID key file \(path) holds no P-256 private key in PEM: \(error)")
        }
    }

    /// Seconds between looks at the connections closed and the resident size.
    static let memoryUpkeepInterval = 5.0

    /// Open event streams, for tests and monitoring.
    public var streamCount: Int { streams.subscriberCount }

    /// Builds every followed view model again and sends it, as at midnight
    /// when date texts change; for tests of the order streams see.
    public func republishFollowedViewModels() {
        streams.republishAll()
    }

    /// Waits until `condition` holds for the number of open connections, or
    /// `timeout` seconds pass; whether it holds. A stream has left every index
    /// and released its bytes before its connection counts as closed.
    public func waitForConnections(timeout: Double = 5, until condition: (Int) -> Bool) -> Bool {
        server.waitForConnections(timeout: timeout, until: condition)
    }

    /// Events queued on streams and not yet written: bounded by the topics each
    /// stream follows, however slowly it reads.
    public var queuedStreamEvents: Int { streams.queuedEventCount }

    /// Bytes held for unsent stream events (an upper bound: shared bytes count
    /// once per stream).
    public var heldStreamBytes: Int { streams.memory.total }

    /// The port listened on, the chosen one when configured with 0.
    public var port: Int { server.port }
    public var host: String { configuration.server.host }

    /// Adds the demo data when asked and the database has none; returns the
    /// demo users' tokens when it did.
    public func seedDemoIfAsked() throws -> (alice: String, bob: String)? {
        guard configuration.demo else { return nil }
        let result = Mutex<Result<DemoData.Tokens?, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let events = events
        let database = database
        Task {
            let outcome = await Result(catching: { try await DemoData.seed(events: events, database: database) })
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get().map { ($0.alice, $0.bob) }
    }

    public func start() throws {
        try server.start()
    }

    /// Stops gracefully: no new connections, requests in flight finish, then the
    /// database closes.
    public func shutdown() {
        shutdownState.begin()
        toBot.finish()
        chatbotAnswers.cancel()
        midnight.cancel()
        heartbeat.cancel()
        memoryUpkeep.stop()
        pushDelivery.stop()
        presence.stop()
        pushHandOff.delivery.withLock { $0 = nil }
        streams.closeAll()
        server.shutdown()
        follower?.stop()
        do {
            try events.finish()
        } catch {
            logger.error("the write-ahead log could not be copied into the database file on the way out: \(error)")
        }
        database.close()
        accessLog?.flush()
    }

    /// Waits until every access-log line handed over is written.
    /// Opens the access log's file anew (after it was moved for rotation),
    /// once the lines handed over so far are written to the old one.
    public func reopenLogs() {
        accessLog?.reopen()
    }

    /// Accounts were disabled beside this server (`tailor users disable` on
    /// its SQLite file, then SIGUSR1): the streams and remembered tokens of
    /// every disabled account it holds end now. Answers how many accounts.
    @discardableResult
    public func endDisabledAccounts() throws -> Int {
        let held = streams.users.union(credentials.users)
        let disabled = try database.read { try $0.disabled(among: held.sorted()) }
        for user in disabled {
            credentials.forget(user: user)
            streams.endStreams(ofUser: user)
        }
        return disabled.count
    }

    public func flushAccessLog() {
        accessLog?.flush()
    }
}

/// Where the feed's handler finds the push delivery, which is made after it.
private final class PushHandOff: Sendable {
    let delivery = Mutex<PushDelivery?>(nil)
}

/// A setting that cannot work, said in words a person can act on.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
