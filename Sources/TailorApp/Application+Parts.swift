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

extension Application {
    /// The long-lived parts, in the order they depend on each other: the
    /// group stops them from the last to the first, so the writer, which
    /// every other part writes through, commits its last batch after all of
    /// them have stopped, and readiness says "draining" before anything stops.
    static func parts(configuration: TailorConfiguration, server: HTTPServer, database: Database, events: EventRouter, bus: FeedBus?,
                      follower: FeedFollower?,
                      streams: EventStreams, readModel: ReadModel, presence: PresenceDriver, news: FeedNews, metrics: ServerMetrics,
                      accessLog: AccessLog?, shutdown: ShutdownState, now: @escaping @Sendable () -> Int, logger: Logger) -> [Part] {
        let loops = server.group
        let botID = readModel.botID
        let chatbot = Chatbot(botID: botID, delay: configuration.botDelay, router: events,
                              typing: { chat, contact in presence.typed(in: chat, by: botID, contact: contact) }, loops: loops, logger: logger)
        let pushDelivery = PushDelivery(events: events, streams: streams, queued: news.pushesQueued, key: readModel.pushKey, settings: configuration.push,
                                        metrics: metrics, now: now, loop: loops.next(), logger: logger)
        return [
            // Closed after the writer's last commit is announced.
            Part("bus", stop: { bus?.close() }),
            Part("writer", stop: {
                do {
                    try events.finish()
                } catch {
                    logger.error("the write-ahead log could not be copied into the database file on the way out: \(error)")
                }
                database.close()
                accessLog?.flush()
            }),
            Part("feed", start: { follower?.start() ?? {} }),
            // Streams end first, so that their connections close with the rest.
            Part("http", start: {
                try server.start()
                return {
                    streams.closeAll()
                    server.shutdown()
                }
            }),
            LastSeenRecorder(presence: presence, events: events, executor: loops.next(), logger: logger).part,
            Part("presence", start: { presence.start() }),
            Part("push", stop: { pushDelivery.stop() }),
            Part("chatbot", start: {
                let stopAnswering = chatbot.start(hearing: news.forBot, on: loops.next())
                return {
                    news.finish()
                    stopAnswering()
                }
            }),
            Ticker.midnight(dates: readModel.dates, cache: readModel.cache, streams: streams, now: now, on: loops.next()).part,
            Ticker.heartbeat(every: configuration.heartbeat, streams: streams, on: loops.next()).part,
            MemoryUpkeepThread.part(openConnections: { server.connectionCount }, logger: logger),
            Part("readiness", stop: { shutdown.begin() }),
        ]
    }
}
