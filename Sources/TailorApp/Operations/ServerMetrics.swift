import CoreMetrics
import Prometheus
import Synchronization
import TailorBus
import TailorHTTP
import TailorViews

/// What an operator scrapes at `GET /metrics`, in Prometheus's text format.
///
/// Made through swift-metrics' API on a registry of this server's own rather
/// than the process-wide bootstrap, so that servers side by side in one
/// process (the tests) keep their figures apart. What is counted as it happens
/// (requests, batches) is recorded on the way; what is a state (connections,
/// streams, memory) or a running total kept where it happens (events
/// published, cache hits) is read when scraped. No figure holds user data:
/// labels are route patterns, status classes and stage names.
final class ServerMetrics: Sendable {
    /// What is read at each scrape.
    struct Sample: Sendable {
        var connections = 0
        var streams = 0
        var followedTopics = 0
        var streamHeldBytes = 0
        var cacheBytes = 0
        var feedApplied = 0
        var feedLatestSeen = 0
        /// Users with a stream here, or closed or a request within the grace (`ServedUsers`).
        var servedUsers = 0
        var sqliteLogFrames = 0
        var usersOnline = 0
        var otherServers = 0
        /// Seconds the writer rests after a batch now (`GroupCommit`).
        var writerRestSeconds = 0.0
        var kept = ChatDirectory.Figures()
        /// The bus's figures, when there is one (`--bus`), and whether this
        /// server's commits are also notified through PostgreSQL now.
        var bus: BusStatistics?
        var notifiesPostgres = true
        /// Whether commits go by interest on the bus now, how many other
        /// servers said whom they serve, and how many that they hear typing there.
        var routesByInterest = false
        var interestedServers = 0
        var typingHearers = 0
        var totals = Totals()
        /// This process's CPU time, resident memory and open files (`ProcessProbe`).
        var cpuSeconds = 0.0
        var residentBytes = 0
        var openFiles = 0
    }

    /// Running totals kept by the parts that count them.
    struct Totals: Sendable {
        var eventsPublished = 0
        var slowStreamsEnded = 0
        var cacheHits = 0
        var cacheMisses = 0
        var checkpointsOnOwnThread = 0
        var checkpointsByWriter = 0
        /// Reads of PostgreSQL's feed by the follower.
        var feedReads = 0
        /// Times the follower applied entries it knew without a read, however many at once.
        var feedApplies = 0
        /// Entries the follower passed over: they touch no user served here.
        var feedPassedOver = 0
        /// Entries the follower read back from PostgreSQL: no notification carried them.
        var feedEntriesRead = 0
        /// Other servers' entries that came whole with their message, and the stubs heard (the bus).
        var feedBodiesHeard = 0
        var feedStubsHeard = 0
    }

    /// The figures of every route, made before the first request so that
    /// recording one takes no lock of the table (the loops answer at once).
    final class Requests: Sendable {
        private struct Route: Sendable {
            /// By status class, 1xx to 5xx.
            let answers: [CoreMetrics.Counter]
            let duration: CoreMetrics.Timer
        }

        private let routes: [String: Route]

        fileprivate init(routes: [String], factory: PrometheusMetricsFactory) {
            self.routes = Dictionary(uniqueKeysWithValues: routes.map { route in
                (route, Route(answers: (1...5).map { CoreMetrics.Counter(label: "tailor_http_requests_total",
                                                                         dimensions: [("route", route), ("status", "\($0)xx")], factory: factory) },
                              duration: CoreMetrics.Timer(label: "tailor_http_request_seconds", dimensions: [("route", route)], factory: factory)))
            })
        }

        /// An answer of `route`: counted by status class, its time in the route's histogram.
        func observe(route: String, status: HTTPStatus, nanoseconds: UInt64) {
            guard let metrics = routes[route] else { return }
            metrics.answers[min(max(status.code / 100, 1), 5) - 1].increment()
            metrics.duration.recordNanoseconds(Int64(nanoseconds))
        }
    }

    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let batchEvents: Recorder
    private let batchDuration: CoreMetrics.Timer
    /// The totals as of the last scrape: a counter goes up by the difference.
    private struct Counted {
        var totals: [String: Int] = [:]
        var cpuSeconds = 0.0
    }

    /// Shared by the loops that answer scrapes: two scrapes at once must not
    /// both add the same growth.
    private let counted = Mutex(Counted())
    /// When the server started, in seconds since 1970: Prometheus's
    /// `process_start_time_seconds`, by which a restart shows.
    private let startTime: Double

    /// `startTime`: seconds since 1970.
    init(startTime: Double) {
        self.startTime = startTime
        var factory = PrometheusMetricsFactory(registry: registry)
        // From 100 µs (a cached GET) to 10 s (a request that waited on a busy database).
        factory.defaultDurationHistogramBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]
            .map { Duration.nanoseconds(Int64($0 * 1e9)) }
        factory.valueHistogramBuckets["tailor_writer_batch_events"] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
        self.factory = factory
        batchEvents = Recorder(label: "tailor_writer_batch_events", dimensions: [], aggregate: true, factory: factory)
        batchDuration = CoreMetrics.Timer(label: "tailor_writer_batch_seconds", dimensions: [], factory: factory)
    }

    // MARK: As it happens

    /// The figures of `routes` and of the answers no route gave.
    func requests(of routes: [String]) -> Requests {
        Requests(routes: routes + [HTTPResponder.staticFiles, HTTPResponder.unmatched], factory: factory)
    }

    /// A batch the writer committed: how many events, and how long it took to write and commit.
    func observeBatch(events: Int, nanoseconds: UInt64) {
        batchEvents.record(events)
        batchDuration.recordNanoseconds(Int64(nanoseconds))
    }

    /// A push posted to its push service, and what came of it (`PushDelivery`).
    func pushSent(result: String) {
        CoreMetrics.Counter(label: "tailor_push_sent_total", dimensions: [("result", result)], factory: factory).increment()
    }

    /// Pending pushes dropped unsent: `replaced` by a newer one of the same
    /// chat, or `over_limit` past the bound per subscription.
    func pushesDropped(_ count: Int, reason: String) {
        guard count > 0 else { return }
        CoreMetrics.Counter(label: "tailor_push_dropped_total", dimensions: [("reason", reason)], factory: factory).increment(by: count)
    }

    // MARK: When scraped

    /// Every figure as Prometheus text, after recording `sample`.
    func exposition(_ sample: Sample) -> [UInt8] {
        let states: [String: Int] = [
            "tailor_connections_open": sample.connections, "tailor_streams_open": sample.streams,
            "tailor_stream_topics_followed": sample.followedTopics, "tailor_stream_held_bytes": sample.streamHeldBytes,
            "tailor_view_cache_bytes": sample.cacheBytes, "tailor_feed_applied_position": sample.feedApplied,
            "tailor_feed_lag_positions": max(sample.feedLatestSeen - sample.feedApplied, 0),
            "tailor_sqlite_log_frames": sample.sqliteLogFrames, "tailor_served_users": sample.servedUsers,
            "tailor_presence_users_online": sample.usersOnline, "tailor_presence_other_servers": sample.otherServers,
            "tailor_kept_users": sample.kept.users, "tailor_kept_chats": sample.kept.chats, "tailor_kept_chat_bytes": sample.kept.bytes,
            "process_resident_memory_bytes": sample.residentBytes, "process_open_fds": sample.openFiles,
        ].merging(sample.bus.map { ["tailor_bus_connected": $0.connected ? 1 : 0, "tailor_bus_subscriptions": $0.subscriptions,
                              "tailor_bus_postgres_notifications": sample.notifiesPostgres ? 1 : 0,
                              "tailor_bus_routes_by_interest": sample.routesByInterest ? 1 : 0,
                              "tailor_bus_interested_servers": sample.interestedServers,
                              "tailor_bus_typing_hearers": sample.typingHearers] } ?? [:]) { $1 }
        // The registry hands back the figure a name already has: named here
        // only, each is made at the first scrape and found at the next.
        for (name, value) in states { Meter(label: name, dimensions: [], factory: factory).set(value) }
        let totals: [String: Int] = [
            "tailor_stream_events_published_total": sample.totals.eventsPublished,
            "tailor_streams_ended_slow_total": sample.totals.slowStreamsEnded,
            "tailor_view_cache_hits_total": sample.totals.cacheHits, "tailor_view_cache_misses_total": sample.totals.cacheMisses,
            "tailor_checkpoints_total": sample.totals.checkpointsOnOwnThread,
            "tailor_checkpoints_by_writer_total": sample.totals.checkpointsByWriter,
            "tailor_feed_reads_total": sample.totals.feedReads,
            "tailor_feed_applies_total": sample.totals.feedApplies,
            "tailor_feed_entries_passed_over_total": sample.totals.feedPassedOver,
            "tailor_feed_entries_read_total": sample.totals.feedEntriesRead,
            "tailor_feed_bodies_heard_total": sample.totals.feedBodiesHeard,
            "tailor_feed_stubs_heard_total": sample.totals.feedStubsHeard,
            "tailor_kept_users_let_go_total": sample.kept.usersLetGo, "tailor_kept_users_read_again_total": sample.kept.usersReadAgain,
        ].merging(sample.bus.map {
            ["tailor_bus_messages_published_total": $0.published, "tailor_bus_messages_not_published_total": $0.notPublished,
             "tailor_bus_messages_received_total": $0.received, "tailor_bus_disconnections_total": $0.disconnections]
        } ?? [:]) { $1 }
        counted.withLock { last in
            for (name, total) in totals {
                let grown = total - last.totals[name, default: 0]
                let counter = CoreMetrics.Counter(label: name, dimensions: [], factory: factory)
                if grown > 0 { counter.increment(by: grown) }
                last.totals[name] = max(total, last.totals[name, default: 0])
            }
            let grown = sample.cpuSeconds - last.cpuSeconds
            if grown > 0 { FloatingPointCounter(label: "process_cpu_seconds_total", dimensions: [], factory: factory).increment(by: grown) }
            last.cpuSeconds = max(sample.cpuSeconds, last.cpuSeconds)
        }
        Meter(label: "tailor_writer_commit_rest_seconds", dimensions: [], factory: factory).set(sample.writerRestSeconds)
        Meter(label: "process_start_time_seconds", dimensions: [], factory: factory).set(startTime)
        Meter(label: "tailor_build_info", dimensions: [("version", TailorVersion.number)], factory: factory).set(1)
        return MetricHelp.added(to: registry.emitToBuffer())
    }
}
