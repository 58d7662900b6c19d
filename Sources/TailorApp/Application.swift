import Logging
import TailorHTTP

/// Tailor assembled: the routes, the static files, and the HTTP server that
/// serves them.
public final class Application: Sendable {
    public let configuration: TailorConfiguration
    private let server: HTTPServer

    public init(configuration: TailorConfiguration, logger: Logger = Logger(label: "tailor")) throws {
        self.configuration = configuration
        var router = Router()
        HealthRoutes.register(on: &router)
        var fallback: Router.Handler?
        if let folder = configuration.publicFolder {
            guard let files = StaticFiles(root: folder) else {
                throw ConfigurationError("the public folder \(folder) does not exist or is not a folder")
            }
            fallback = files.handler
        }
        server = try HTTPServer(
            configuration: configuration.server,
            responder: HTTPResponder(router: router, fallback: fallback),
            logger: logger)
    }

    /// The port listened on, the chosen one when configured with 0.
    public var port: Int { server.port }
    public var host: String { configuration.server.host }

    public func start() throws {
        try server.start()
    }

    /// Stops gracefully: no new connections, requests in flight finish.
    public func shutdown() {
        server.shutdown()
    }
}

/// A setting that cannot work, said in words a person can act on.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
