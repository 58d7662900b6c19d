import Logging
import TailorBus
import TailorFeed
import TailorLoop
import TailorPresence
import TailorStore
import TailorStreams
import TailorViews

/// How some parts are made from the configuration and the parts before them.
extension Application {
    static func authenticator(_ configuration: TailorConfiguration, _ database: Database, _ events: EventRouter, _ readModel: ReadModel,
                              _ served: ServedUsers, _ now: @escaping @Sendable () -> Int, _ logger: Logger) -> Authenticator {
        Authenticator(database: database, events: events, credentials: readModel.credentials, now: now, writeLimit: configuration.writeLimit,
                      accountLimit: configuration.accountLimit,
                      passwords: PasswordGate(hasher: PasswordHasher(limits: configuration.passwordQueue),
                                              perClient: configuration.passwordAttemptLimit, perName: configuration.passwordNameLimit,
                                              logger: logger),
                      sessionIdleTime: configuration.sessionIdleTime,
                      served: configuration.sharedDatabaseURL == nil ? nil : served, logger: logger)
    }

    /// What `/metrics` shows of the server now.
    static func sample(metrics: ServerMetrics, connections: WatchedCount, streams: EventStreams, readModel: ReadModel, database: Database,
                       progress: FeedProgress, follower: FeedFollower?, bus: FeedBus?, presence: PresenceDriver,
                       events: EventRouter) -> ServerMetrics.Sample {
        let cacheCounts = readModel.cache.counts
        let checkpoints = database.checkpoints
        let process = ProcessProbe.current
        let presence = presence.counts
        return ServerMetrics.Sample(
            connections: connections.current, streams: streams.subscriberCount,
            followedTopics: streams.followedTopicCount, streamHeldBytes: streams.memory.total, cacheBytes: readModel.cache.byteCount,
            feedApplied: progress.applied, feedLatestSeen: follower?.latestSeen ?? progress.applied, servedUsers: streams.served.count,
            sqliteLogFrames: checkpoints.logFrames,
            usersOnline: presence.usersOnline, otherServers: presence.otherServers, writerRestSeconds: events.rest.inSeconds,
            kept: readModel.directory.figures, bus: bus?.bus.statistics, notifiesPostgres: bus?.announcement.notifiesPostgres() ?? true,
            routesByInterest: bus?.routesByInterest ?? false, interestedServers: bus?.interestedServers ?? 0,
            typingHearers: bus?.typingHearers ?? 0,
            totals: ServerMetrics.Totals(
                eventsPublished: streams.eventsPublished, slowStreamsEnded: streams.memory.streamsEndedSlow,
                cacheHits: cacheCounts.hits, cacheMisses: cacheCounts.misses,
                checkpointsOnOwnThread: checkpoints.onOwnThread, checkpointsByWriter: checkpoints.byWriter,
                feedReads: follower?.reads ?? 0, feedApplies: follower?.applies ?? 0, feedPassedOver: follower?.passedOver ?? 0,
                feedEntriesRead: follower?.entriesRead ?? 0, feedBodiesHeard: follower?.bodiesHeard ?? 0,
                feedStubsHeard: follower?.stubsHeard ?? 0),
            cpuSeconds: process.cpuSeconds, residentBytes: process.residentKiB.now * 1024,
            openFiles: process.openFiles)
    }
}

extension PresenceDriver {
    /// On PostgreSQL, with a channel to the other servers writing it.
    convenience init(configuration: TailorConfiguration, readModel: ReadModel, database: Database, streams: EventStreams,
                     executor: EventLoop, now: @escaping @Sendable () -> Int, logger: Logger) throws {
        self.init(presence: readModel.presence, channel: try configuration.sharedDatabaseURL.map { try PresenceChannel(url: $0, logger: logger) },
                  onBus: !configuration.bus.isEmpty, database: database, directory: readModel.directory, cache: readModel.cache, streams: streams, executor: executor, now: now,
                  logger: logger)
    }
}
