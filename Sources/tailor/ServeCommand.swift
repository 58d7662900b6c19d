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

    @Option(help: ArgumentHelp(
        "SQLite file, created with its folder (:memory: for a throwaway one), or a postgres:// URL.",
        discussion: "Also from the TAILOR_DB environment variable; the flag wins. Default: data/tailor.sqlite."))
    var db: String?

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

    @Option(help: "Bytes of encoded view models kept in memory; an eighth of --memory-budget unless given.")
    var viewCacheBytes: Int?

    @Option(help: "Writes a user may make per second on average (429 past it); 0 for no limit.")
    var writeRate = 20.0

    @Option(help: "Writes a user may make at once before --write-rate applies.")
    var writeBurst = 200.0

    @Option(help: "Sign-ups and sign-ins per second from one client address on average (429 past it); 0 for no limit.")
    var accountRate = 1.0

    @Option(help: "Sign-ups and sign-ins from one client address at once before --account-rate applies.")
    var accountBurst = 100.0

    @Option(help: "Bytes the server may hold beyond its fixed needs: an eighth for cached view models (unless --view-cache-bytes), a quarter for all event streams' unsent events, a thirty-second per user; past them the slowest streams are ended.")
    var memoryBudget = 512 * 1024 * 1024

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Option(help: "Event loop threads; defaults to the CPUs this process may use.")
    var threads: Int?

    @Option(help: "Past this many open connections, new ones get 503 and are closed.")
    var maxConnections = 10_000

    @Option(help: "Past this many open connections from one client address, new ones get 503; 0 for no limit (behind a proxy).")
    var maxConnectionsPerAddress = 256

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

    @Option(help: "Seconds for a whole request body to arrive (408 past it).")
    var bodyTimeout = 30.0

    @Option(help: "Seconds an idle keep-alive connection is kept.")
    var idleTimeout = 60.0

    func validate() throws {
        try Self.require(port, in: 0...65535, "--port")
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        guard Database.Synchronous(rawValue: sync) != nil else { throw ValidationError("--sync must be normal or full.") }
        // Every number has a range: a value past it (or inf, nan) would otherwise
        // pass here and trap later, when it is turned into a deadline or a count.
        if let threads { try Self.require(threads, in: 1...1024, "--threads") }
        try Self.require(maxConnections, in: 1...1_000_000, "--max-connections")
        try Self.require(maxConnectionsPerAddress, in: 0...1_000_000, "--max-connections-per-address")
        try Self.require(maxBody, in: 0...(1 << 30), "--max-body")
        try Self.require(maxRequestLine, in: 64...(1 << 20), "--max-request-line")
        try Self.require(maxHeaderBytes, in: 256...(16 << 20), "--max-header-bytes")
        try Self.require(maxHeaderFields, in: 1...10_000, "--max-header-fields")
        if let viewCacheBytes { try Self.require(viewCacheBytes, in: 1...(1 << 40), "--view-cache-bytes") }
        try Self.require(memoryBudget, in: (1 << 20)...(1 << 42), "--memory-budget")
        try Self.require(headerTimeout, in: 0.01...3600, "--header-timeout")
        try Self.require(bodyTimeout, in: 0.01...3600, "--body-timeout")
        try Self.require(idleTimeout, in: 0.01...86400, "--idle-timeout")
        try Self.require(heartbeat, in: 0.01...3600, "--heartbeat")
        try Self.require(botDelay, in: 0...3600, "--bot-delay")
        try Self.require(writeRate, in: 0...1_000_000, "--write-rate")
        try Self.require(writeBurst, in: 1...1_000_000, "--write-burst")
        try Self.require(accountRate, in: 0...1_000_000, "--account-rate")
        try Self.require(accountBurst, in: 1...1_000_000, "--account-burst")
    }

    /// Fails with the flag's name and range; `contains` is false for nan and inf.
    private static func require<Number: Comparable>(_ value: Number, in range: ClosedRange<Number>, _ flag: String) throws {
        guard range.contains(value) else {
            throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound); got \(value).")
        }
    }

    /// Descriptors kept out of `--max-connections`: the database's connections,
    /// static files being read, epoll and eventfds, the listener's reserve.
    static let filesKeptForOtherUses = 64

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
        configuration.server.maxConnections = max(1, min(maxConnections, openFiles - Self.filesKeptForOtherUses))
        if configuration.server.maxConnections < maxConnections {
            logger.warning("--max-connections lowered from \(maxConnections) to \(configuration.server.maxConnections): the open-files limit is \(openFiles), and \(Self.filesKeptForOtherUses) are kept for the database, files and streams of the server itself")
        }
        configuration.server.maxConnectionsPerAddress = maxConnectionsPerAddress
        configuration.server.bodyTimeout = bodyTimeout
        configuration.server.maxBodyBytes = maxBody
        configuration.server.parserLimits.maxRequestLineBytes = maxRequestLine
        configuration.server.parserLimits.maxHeadBytes = maxHeaderBytes
        configuration.server.parserLimits.maxHeaderFields = maxHeaderFields
        configuration.server.headerTimeout = headerTimeout
        configuration.server.idleTimeout = idleTimeout
        configuration.publicFolder = publicFolder
        configuration.database = DatabaseLocation(db ?? getenv("TAILOR_DB").map { String(cString: $0) } ?? "data/tailor.sqlite")
        configuration.synchronous = Database.Synchronous(rawValue: sync) ?? .normal
        configuration.timeZone = timeZone
        configuration.botDelay = botDelay
        configuration.heartbeat = heartbeat
        configuration.demo = demo
        configuration.viewCacheBytes = viewCacheBytes
        configuration.memoryBudget = memoryBudget
        configuration.writeLimit = RateLimit(perSecond: writeRate, burst: writeBurst)
        configuration.accountLimit = RateLimit(perSecond: accountRate, burst: accountBurst)

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
