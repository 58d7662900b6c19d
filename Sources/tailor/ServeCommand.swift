import ArgumentParser
import Glibc
import Logging
import TailorApp
import TailorLoop
import TailorStore

/// `tailor serve`: starts the server and runs until SIGINT or SIGTERM.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the server; SIGINT or SIGTERM stops it gracefully."
    )

    @Option(help: "Listen address.")
    var host = "127.0.0.1"

    @Option(help: "Listen port; 0 picks a free one and prints it.")
    var port = 8080

    @Option(name: .customLong("public"), help: "Folder served at /.")
    var publicFolder = "Public"

    @Option(help: "SQLite file, created with its folder; :memory: for a throwaway database.")
    var db = "data/tailor.sqlite"

    @Option(help: "SQLite synchronous mode: normal (WAL, fast) or full (every commit synced).")
    var sync = "normal"

    @Option(help: "Time zone of the date texts in view models (IANA name).")
    var timeZone = "UTC"

    @Option(help: "Seconds before the chatbot reads and answers a message.")
    var botDelay = 1.0

    @Option(help: "Seconds between heartbeat comments on event streams.")
    var heartbeat = 15.0

    @Flag(help: "On first start, add users alice and bob (tokens printed), chats and 100 orders.")
    var demo = false

    @Option(help: "Bytes of encoded view models kept in memory.")
    var viewCacheBytes = 64 * 1024 * 1024

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Option(help: "Event loop threads; defaults to the CPUs this process may use.")
    var threads: Int?

    @Option(help: "Past this many open connections, new ones get 503 and are closed.")
    var maxConnections = 10_000

    @Option(help: "Request body limit in bytes (413 past it).")
    var maxBody = 1024 * 1024

    @Option(help: "Request line limit in bytes (414 past it).")
    var maxRequestLine = 8 * 1024

    @Option(help: "Request head limit in bytes (431 past it).")
    var maxHeaderBytes = 64 * 1024

    @Option(help: "Header field count limit (431 past it).")
    var maxHeaderFields = 100

    @Option(help: "Seconds for a request's head, and each piece of its body, to arrive.")
    var headerTimeout = 10.0

    @Option(help: "Seconds an idle keep-alive connection is kept.")
    var idleTimeout = 60.0

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535.") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        guard maxConnections > 0, maxBody >= 0, maxRequestLine > 0, maxHeaderBytes > 0, maxHeaderFields > 0 else {
            throw ValidationError("limits must be positive.")
        }
        guard headerTimeout > 0, idleTimeout > 0 else { throw ValidationError("timeouts must be positive.") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1.") }
        guard Database.Synchronous(rawValue: sync) != nil else { throw ValidationError("--sync must be normal or full.") }
        guard heartbeat > 0 else { throw ValidationError("--heartbeat must be positive.") }
        guard botDelay >= 0 else { throw ValidationError("--bot-delay must not be negative.") }
        guard viewCacheBytes > 0 else { throw ValidationError("--view-cache-bytes must be positive.") }
    }

    func run() throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tailor")
        // Before any thread starts, so every thread inherits the blocked signals.
        let openFiles = ProcessSetup.prepareServerProcess()

        var configuration = TailorConfiguration()
        configuration.server.host = host
        configuration.server.port = port
        configuration.server.loopCount = threads ?? ProcessSetup.usableCPUCount
        configuration.server.maxConnections = maxConnections
        configuration.server.maxBodyBytes = maxBody
        configuration.server.parserLimits.maxRequestLineBytes = maxRequestLine
        configuration.server.parserLimits.maxHeadBytes = maxHeaderBytes
        configuration.server.parserLimits.maxHeaderFields = maxHeaderFields
        configuration.server.headerTimeout = headerTimeout
        configuration.server.idleTimeout = idleTimeout
        configuration.publicFolder = publicFolder
        configuration.databasePath = db
        configuration.synchronous = Database.Synchronous(rawValue: sync) ?? .normal
        configuration.timeZone = timeZone
        configuration.botDelay = botDelay
        configuration.heartbeat = heartbeat
        configuration.demo = demo
        configuration.viewCacheBytes = viewCacheBytes

        let application: Application
        do {
            application = try Application(configuration: configuration, logger: logger)
            if let tokens = try application.seedDemoIfAsked() {
                print("demo users added: alice token \(tokens.alice), bob token \(tokens.bob)")
            }
            try application.start()
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode.failure
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        print("listening on http://\(shownHost):\(application.port)")
        fflush(nil)  // stdout may be a pipe: the line must leave now
        logger.info("serving \(publicFolder) with \(configuration.server.loopCount) loops; open-files limit \(openFiles)")

        let signal = ProcessSetup.waitForTerminationSignal()
        logger.info("signal \(signal): shutting down")
        application.shutdown()
        logger.info("stopped")
    }
}
