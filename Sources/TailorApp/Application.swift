import Glibc
import Logging
import TailorBus
import TailorFeed
import TailorHTTP
import TailorLoop
import TailorPresence
import TailorPush
import TailorStore
import TailorStreams
import TailorViews

/// Tailor assembled: the database and its writer, the read model (kept chats,
/// view cache, view builder), the event streams with a lane on each
/// loop, the feed that connects them, the routes, and the long-lived parts
/// run as one group of services (`Application+Parts`).
public final class Application: Sendable {
    public let configuration: TailorConfiguration
    /// Every route's pattern (`/api/chats/{id}`), as registered, with its methods.
    public let routeTable: [(pattern: String, methods: [HTTPMethod])]
    let server: HTTPServer
    let database: Database
    let events: EventRouter
    let streams: EventStreams
    let credentials: CredentialCache
    let viewCache: ViewCache
    let accessLog: AccessLog?
    let lifecycle: Lifecycle

    public init(configuration: TailorConfiguration, logger: Logger = Logger(label: "tailor")) throws {
        self.configuration = configuration
        let now = Self.now
        let metrics = ServerMetrics(startTime: Double(now()) / 1000)
        let (database, writer) = try Database.open(configuration.database, synchronous: configuration.synchronous,
                                                   settings: configuration.postgresSettings,
                                                   lockWait: configuration.lockWait)
        let (position, settled) = try Store(writer).settledPosition(patience: configuration.feedPatience)
        if !settled { logger.warning("\(FeedGaps.givenUp(below: position + 1, after: configuration.feedPatience))") }
        let readModel = try ReadModel(configuration: configuration, database: database, store: Store(writer), now: now)
        // The loops serve the connections and build their users' view models:
        // a lane on each (see `Lane`).
        let loops = try EventLoopGroup(loopCount: configuration.server.loopCount)
        // Their threads run from here: a failure below ends them again.
        do {
            // The bot's chats are followed everywhere: every server's bot answers what it hears.
            // Entries are passed over on the bus only, whose messages say whom they touch (see OPERATIONS.md).
            let served = ServedUsers(grace: configuration.servedGrace, everywhere: [readModel.botID], passesOver: !configuration.bus.isEmpty)
            var missed: EventStreams.MissedNotifications?
            if configuration.sharedDatabaseURL != nil {
                missed = { (user: Int, after: Int64, through: Int64) async throws -> [EventStreams.Notification] in
                    try await database.readOffLoop { store in
                        try EarlierNotifications.missed(by: user, after: Int(after), through: Int(through), from: store)
                    }
                }
            }
            let streams = EventStreams(views: readModel.views, position: Int64(position), loops: loops.loops,
                                       memory: StreamMemory(budget: configuration.streamBudget, budgetPerUser: configuration.streamBudgetPerUser),
                                       served: served, missedNotifications: missed, logger: logger)
            do {
                streams.logEarlier(try EarlierNotifications.read(from: Store(writer), through: position))
            } catch {
                logger.warning("the notifications of messages from before the start could not be read: a stream resuming from before it gets only its view models: \(error)")
            }
            let presence = try PresenceDriver(configuration: configuration, readModel: readModel, database: database, streams: streams,
                                              executor: loops.next(), now: now, logger: logger)
            let news = FeedNews(botID: readModel.botID)
            let handler = EventHandler(cache: readModel.cache, directory: readModel.directory, credentials: readModel.credentials, streams: streams,
                                       presence: presence, news: news, logger: logger)
            let progress = FeedProgress(applied: position, isShared: configuration.sharedDatabaseURL != nil, timers: loops.next())
            // Presence's signals are heard on the follower's connection (see `PresenceChannel`).
            var presenceHeard: (@Sendable (ChannelNews) -> Void)?
            if let channel = presence.channel { presenceHeard = { channel.hear($0) } }
            let follower = try configuration.sharedDatabaseURL.map { url in
                try FeedFollower(url: url, handler: handler, progress: progress, served: served, gapPatience: configuration.feedPatience,
                                 onBus: !configuration.bus.isEmpty, presenceHeard: presenceHeard, logger: logger)
            }
            let bus = try follower.flatMap { follower in
                try FeedBus.connect(configuration: configuration, schema: try Store(writer).currentSchema(), follower: follower, served: served,
                                    everyServerIsOnBus: { presence.everyServerIsOnBus },
                                    everyServerRoutes: { presence.everyServerRoutesByInterest },
                                    typingHeard: { presence.channel?.hear(.payload($0)) }, timers: loops.next(), logger: logger)
            }
            if let bus { presence.routeTyping { bus.sendTyping($0, to: $1) } }
            let feed: FeedApplier = if let follower { .follower(follower) }
                else { .ownThread(CommitFollower(database: database, handler: handler, progress: progress, logger: logger)) }
            let events = try EventRouter(writer: writer, now: now, quotas: configuration.quotas, pushDelay: configuration.push.delay,
                                         feedWindow: configuration.feedWindow, commitDelay: configuration.commitDelay,
                                         idleTransactionTimeout: configuration.idleTransactionTimeout,
                                         servers: { 1 + presence.otherServers }, feed: feed, announcement: bus?.announcement,
                                         timers: loops.next(), observeBatch: { metrics.observeBatch(events: $0, nanoseconds: $1) })
            let context = AppContext(events: events, views: readModel.views, auth: Self.authenticator(configuration, database, events, readModel, served, now, logger),
                                     presence: presence)
            let accessLog = try configuration.accessLog.map { try AccessLog(path: $0, now: now, logger: logger) }
            let connections = WatchedCount()
            let shutdownState = ShutdownState()
            let routes = try Routes(configuration: configuration, context: context, streams: streams, pushKey: readModel.pushKey, metrics: metrics,
                                    shutdown: shutdownState) {
                Self.sample(metrics: metrics, connections: connections, streams: streams, readModel: readModel, database: database,
                            progress: progress, follower: follower, bus: bus, presence: presence, events: events)
            }
            server = try HTTPServer(configuration: configuration.server, group: loops, connections: connections,
                                    responder: routes.responder(configuration: configuration, auth: context.auth, progress: progress, database: database,
                                                                metrics: metrics, accessLog: accessLog, logger: logger),
                                    logger: logger)
            (self.database, self.events, self.streams, credentials, viewCache, self.accessLog, routeTable) =
                (database, events, streams, readModel.credentials, readModel.cache, accessLog, routes.table)
            lifecycle = Lifecycle(parts: Self.parts(configuration: configuration, server: server, database: database, events: events, bus: bus,
                                                    follower: follower,
                                                    streams: streams, readModel: readModel, presence: presence, news: news, metrics: metrics,
                                                    accessLog: accessLog, shutdown: shutdownState, now: now, logger: logger),
                                  logger: logger)
        } catch {
            loops.shutdown()
            throw error
        }
    }

    /// Starts every part; returns once all have started, or throws why one could not.
    public func start() throws {
        try lifecycle.start()
    }

    /// Stops gracefully, the parts in the reverse of their order: readiness
    /// says draining, the background work ends, the streams end, requests in
    /// flight finish, the feed stops, the writer's last batch commits, then
    /// the database closes.
    public func shutdown() {
        lifecycle.shutdown()
    }

    /// The time as the server tells it: milliseconds since 1970.
    static let now: @Sendable () -> Int = {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}

/// A setting that cannot work, said in words a person can act on.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
