import Logging
import TailorFeed
import TailorHTTP
import TailorPush
import TailorStore
import TailorStreams

/// Every route of the API, the page's static files behind them, and the
/// responder that answers with both.
struct Routes {
    let router: Router
    /// Answers what no route takes: the public folder's files, when one is served.
    let fallback: Router.Handler?

    init(configuration: TailorConfiguration, context: AppContext, streams: EventStreams, pushKey: VAPIDKey, metrics: ServerMetrics,
         shutdown: ShutdownState, sample: @escaping @Sendable () -> ServerMetrics.Sample) throws {
        var router = Router()
        HealthRoutes(events: context.events, shutdown: shutdown).register(on: &router)
        OpenAPIDocument.register(on: &router)
        AccountRoutes(context: context).register(on: &router)
        ChatRoutes(context: context).register(on: &router)
        OrderRoutes(context: context).register(on: &router)
        EventStreamRoutes(context: context, streams: streams).register(on: &router)
        PushRoutes(context: context, key: pushKey, settings: configuration.push).register(on: &router)
        MetricsRoutes(metrics: metrics, sample: sample).register(on: &router)
        self.router = router
        if let folder = configuration.publicFolder {
            guard let files = StaticFiles(root: folder) else {
                throw ConfigurationError("the public folder \(folder) does not exist or is not a folder")
            }
            fallback = files.handler
        } else {
            fallback = nil
        }
    }

    var table: [(pattern: String, methods: [HTTPMethod])] { router.table }

    /// Admits requests by their credentials, makes a request that names a
    /// feed position wait for it, counts and logs each answer.
    func responder(configuration: TailorConfiguration, auth: Authenticator, progress: FeedProgress, database: Database, metrics: ServerMetrics,
                   accessLog: AccessLog?, logger: Logger) -> HTTPResponder {
        let readYourWrites = ReadYourWrites(progress: progress, database: database, maxWait: configuration.positionWait)
        let requests = metrics.requests(of: table.map(\.pattern))
        return HTTPResponder(router: router, fallback: fallback, admission: { await auth.refusal(for: $0) },
                             answerForFailure: { APIError.answer(for: $0) },
                             around: { request, handler in try await readYourWrites.handle(request, handler) },
                             observe: { answered in
                                 requests.observe(route: answered.route, status: answered.status, nanoseconds: answered.nanoseconds)
                                 accessLog?.write(answered)
                             },
                             logsEachRequest: accessLog != nil,
                             proxyTrust: ProxyTrust(proxies: configuration.trustedProxies),
                             crossOrigin: CrossOrigin(origins: configuration.allowedOrigins),
                             logger: logger)
    }
}
