import ArgumentParser
import Glibc
import Logging
import TailorApp
import TailorHTTP
import TailorLoop
import TailorStore

/// The configuration's defaults: what an absent setting means, and what the help says.
private let defaults = TailorConfiguration()

/// `tailor serve`: starts the server and runs until SIGINT or SIGTERM; SIGHUP
/// reopens the access log.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the server; SIGINT or SIGTERM stops it gracefully, SIGHUP reopens the access log, SIGUSR1 ends disabled accounts' streams.",
        discussion: """
            Every option is also read from the environment as TAILOR_ and its name in capitals \
            (--max-body as TAILOR_MAX_BODY, --demo as TAILOR_DEMO=1); a flag given beats the \
            environment. --print-config shows each setting and where it came from.
            """
    )

    // Every option is also read from the environment, `TAILOR_` and its name
    // (`--max-body` → `TAILOR_MAX_BODY`); the flag wins. Absent from both, the
    // configuration's default applies (`--print-config` shows what is used).

    @Option(help: "Listen address (\(defaults.server.host)).")
    var host: String?

    @Option(help: "Listen port (\(defaults.server.port)); 0 picks a free one and prints it.")
    var port: Int?

    @Option(name: .customLong("public"), help: "Folder served at / (\(defaults.publicFolder ?? "none")).")
    var publicFolder: String?

    @Option(help: "SQLite file, created with its folder (:memory: for a throwaway one), or a postgres:// URL (\(defaults.database)).")
    var db: String?

    @Option(help: "SQLite synchronous mode: normal (WAL, fast) or full (every commit synced); \(defaults.synchronous.rawValue) unless given.")
    var sync: String?

    @Option(help: "Time zone of the date texts in view models (IANA name; \(defaults.timeZone)).")
    var timeZone: String?

    @Option(help: "Seconds before the chatbot reads and answers a message (\(defaults.botDelay)).")
    var botDelay: Double?

    @Option(help: "Seconds the writer rests after a batch, so that the events arriving meanwhile share the next commit (\(defaults.commitDelay.inSeconds)), times the servers following a PostgreSQL database (up to 4); 0 never rests.")
    var commitDelay: Double?

    @Option(help: "Seconds the writer waits for a lock another server's transaction holds, on PostgreSQL (\(defaults.lockWait.inSeconds)); past it that write gets 503 and the rest of its batch commits.")
    var lockWait: Double?

    @Option(help: "Seconds PostgreSQL lets a transaction of this server wait for it before it ends the session and undoes it (\(defaults.idleTransactionTimeout.inSeconds)); after a lock wait runs out, the writer waits only briefly for locks for twice this, and remembers a chat found held for twelve times this; a gap in the change feed is waited for three times this (10 s at least). Give every server of a database the same.")
    var idleTransactionTimeout: Double?

    @Option(help: "Seconds between heartbeat comments on event streams (\(defaults.heartbeat)).")
    var heartbeat: Double?

    @Option(help: "Seconds a user stays online after their last event stream closed (\(defaults.offlineGrace)).")
    var offlineGrace: Double?

    @Option(help: "Seconds without a presence signal after which another server counts as gone, with its users (\(defaults.presenceLifetime)).")
    var presenceLifetime: Double?

    @Flag(inversion: .prefixedNo, help: "On first start, add users alice and bob (tokens printed), chats and 100 orders.")
    var demo: Bool?

    @Option(help: "Bytes of encoded view models kept in memory; an eighth of --memory-budget unless given.")
    var viewCacheBytes: Int?

    @Option(help: "Writes a user may make per second on average (\(defaults.writeLimit.perSecond); 429 past it); 0 for no limit.")
    var writeRate: Double?

    @Option(help: "Writes a user may make at once before --write-rate applies (\(defaults.writeLimit.burst)).")
    var writeBurst: Double?

    @Option(help: "Sign-ups and sign-ins per second from one client address on average (\(defaults.accountLimit.perSecond); 429 past it); 0 for no limit.")
    var accountRate: Double?

    @Option(help: "Sign-ups and sign-ins from one client address at once before --account-rate applies (\(defaults.accountLimit.burst)).")
    var accountBurst: Double?

    @Option(help: "Bytes the server may hold beyond its fixed needs (\(defaults.memoryBudget)): an eighth for cached view models (unless --view-cache-bytes), a quarter for all event streams' unsent events, a thirty-second per user, a quarter for the chats kept for active users' lists and screens; past them the slowest streams are ended.")
    var memoryBudget: Int?

    @Option(help: "Log level: trace, debug, info (the default), notice, warning, error, critical.")
    var logLevel: String?

    @Option(help: "Log lines on standard error as text (the default) or json: one object per line with time, level, logger, message, source and metadata.")
    var logFormat: String?

    @Option(help: "Event loop threads; defaults to the CPUs this process may use.")
    var threads: Int?

    @Option(help: "Past this many open connections (\(defaults.server.maxConnections)), new ones get 503 and are closed.")
    var maxConnections: Int?

    @Option(help: "Past this many open connections from one client address (\(defaults.server.maxConnectionsPerAddress)), new ones get 503; 0 for no limit (behind a proxy).")
    var maxConnectionsPerAddress: Int?

    @Option(help: "Request body limit in bytes (\(defaults.server.maxBodyBytes); 413 past it).")
    var maxBody: Int?

    @Option(help: "Request line limit in bytes (\(defaults.server.parserLimits.maxRequestLineBytes); 414 past it).")
    var maxRequestLine: Int?

    @Option(help: "Request head limit in bytes (\(defaults.server.parserLimits.maxHeadBytes); 431 past it).")
    var maxHeaderBytes: Int?

    @Option(help: "Header field count limit (\(defaults.server.parserLimits.maxHeaderFields); 431 past it).")
    var maxHeaderFields: Int?

    @Option(help: "Seconds for a request's head, and each piece of its body, to arrive (\(defaults.server.headerTimeout)).")
    var headerTimeout: Double?

    @Option(help: "Seconds for a whole request body to arrive (\(defaults.server.bodyTimeout); 408 past it).")
    var bodyTimeout: Double?

    @Option(help: "Seconds an idle keep-alive connection is kept (\(defaults.server.idleTimeout)).")
    var idleTimeout: Double?

    @Option(help: "Days a browser session may go unused before it ends (\(Double(defaults.sessionIdleTime) / 86_400_000)).")
    var sessionIdleDays: Double?

    @Option(help: "Browser sessions one account may hold (\(defaults.quotas.sessionsPerUser)); a new one past it ends the oldest.")
    var sessionsPerUser: Int?

    @Option(help: "Password hashes that may wait for the passwords thread (\(defaults.passwordQueue.waiting)), \(defaults.passwordQueue.waitingPerClient) of them from one address; 503 or 429 past it.")
    var passwordQueue: Int?

    @Option(help: "Write each answered request as a JSON line to this file (appended), or - for standard output; none unless given.")
    var accessLog: String?

    @Option(help: "The NATS bus the servers of a PostgreSQL database share, nats://HOST:PORT, or a NATS cluster's addresses comma-separated: commits are announced on it rather than by PostgreSQL's notifications (none: PostgreSQL's).")
    var bus: String?

    @Option(help: "Seconds a server goes on serving a user after their last stream there closed or their last request came (\(defaults.servedGrace.inSeconds)): a reconnect within it finds everything kept; past it, with --bus, the server passes over their changes and lets go of what it kept of them.")
    var servedGrace: Double?

    @Option(help: "Addresses of proxies whose X-Forwarded-For and X-Forwarded-Proto are believed, or blocks of them (10.0.0.0/8), comma-separated (none).")
    var trustProxy: String?

    @Option(help: "Origins whose pages may call the API from a browser (CORS), comma-separated, e.g. https://app.example.com (none).")
    var allowOrigin: String?

    @Option(help: "Directives that extend the page's content security policy, separated by ';', each replacing the default's of its name, e.g. \"img-src 'self' https://images.example.com\" (none).")
    var contentSecurityPolicy: String?

    @Option(help: "Hosts of push services that push subscriptions may name, besides the browsers' own, comma-separated (none).")
    var pushHosts: String?

    @Option(help: "Seconds a push subscription's pushes may keep failing (no answer, 429, 5xx) before it is removed (\(Int(defaults.push.dropFailingAfter))).")
    var pushDropFailingAfter: Double?

    @Option(help: "Certificate authorities (PEM) to trust for push services instead of the system's (none).")
    var pushCaFile: String?

    @Option(help: "A PEM file with the VAPID key (P-256) that signs pushes; unless given, one is made at first start and kept in the database.")
    var vapidKey: String?

    @Option(help: "Who runs this server, for push services (mailto: or https:) (\(defaults.push.subject)).")
    var vapidSubject: String?

    @Flag(help: "Print the effective settings, each with where it came from (flag, environment or default), and exit.")
    var printConfig = false

    /// Every setting, from its flag, the environment or the default, checked.
    /// How log lines are written (`--log-format`).
    enum LogFormat: String {
        case text, json
    }

    func resolve(_ settings: inout SettingsResolver) throws -> (TailorConfiguration, Logger.Level, LogFormat) {
        var configuration = defaults
        func check<Number: Comparable>(_ value: Number, in range: ClosedRange<Number>, _ flag: String) throws -> Number {
            // Every number has a range: a value past it (or inf, nan) would
            // otherwise trap later, when it is turned into a deadline or a count.
            guard range.contains(value) else {
                throw ValidationError("--\(flag) must be from \(range.lowerBound) to \(range.upperBound); got \(value).")
            }
            return value
        }
        configuration.server.host = try settings.value(host, "host", default: defaults.server.host)
        configuration.server.port = try check(try settings.value(port, "port", default: defaults.server.port), in: 0...65535, "port")
        configuration.publicFolder = try settings.value(publicFolder, "public", default: defaults.publicFolder ?? "Public")
        let location = try settings.value(db, "db", default: defaults.database.description) { DatabaseLocation($0).description }
        configuration.database = DatabaseLocation(location)
        let sync = try settings.value(sync, "sync", default: defaults.synchronous.rawValue)
        guard let synchronous = Database.Synchronous(rawValue: sync) else { throw ValidationError("--sync must be normal or full.") }
        configuration.synchronous = synchronous
        configuration.timeZone = try settings.value(timeZone, "time-zone", default: defaults.timeZone)
        configuration.botDelay = try check(try settings.value(botDelay, "bot-delay", default: defaults.botDelay), in: 0...3600, "bot-delay")
        configuration.heartbeat = try check(try settings.value(heartbeat, "heartbeat", default: defaults.heartbeat), in: 0.01...3600, "heartbeat")
        configuration.offlineGrace = try check(try settings.value(offlineGrace, "offline-grace", default: defaults.offlineGrace), in: 0...3600,
                                               "offline-grace")
        configuration.presenceLifetime = try check(try settings.value(presenceLifetime, "presence-lifetime", default: defaults.presenceLifetime),
                                                   in: 0.3...3600, "presence-lifetime")
        configuration.commitDelay = .seconds(try check(try settings.value(commitDelay, "commit-delay", default: defaults.commitDelay.inSeconds),
                                                       in: 0...1, "commit-delay"))
        configuration.lockWait = .seconds(try check(try settings.value(lockWait, "lock-wait", default: defaults.lockWait.inSeconds),
                                                    in: 0.001...3600, "lock-wait"))
        configuration.idleTransactionTimeout = .seconds(try check(try settings.value(idleTransactionTimeout, "idle-transaction-timeout",
                                                                                     default: defaults.idleTransactionTimeout.inSeconds),
                                                                  in: 0.1...3600, "idle-transaction-timeout"))
        configuration.demo = try settings.switchValue(demo, "demo", default: defaults.demo)
        configuration.memoryBudget = try check(try settings.value(memoryBudget, "memory-budget", default: defaults.memoryBudget),
                                               in: (1 << 20)...(1 << 42), "memory-budget")
        configuration.viewCacheBytes = try settings.optional(viewCacheBytes, "view-cache-bytes", derived: "an eighth of --memory-budget")
            .map { try check($0, in: 1...(1 << 40), "view-cache-bytes") }
        configuration.writeLimit = RateLimit(
            perSecond: try check(try settings.value(writeRate, "write-rate", default: defaults.writeLimit.perSecond), in: 0...1_000_000, "write-rate"),
            burst: try check(try settings.value(writeBurst, "write-burst", default: defaults.writeLimit.burst), in: 1...1_000_000, "write-burst"))
        configuration.accountLimit = RateLimit(
            perSecond: try check(try settings.value(accountRate, "account-rate", default: defaults.accountLimit.perSecond), in: 0...1_000_000, "account-rate"),
            burst: try check(try settings.value(accountBurst, "account-burst", default: defaults.accountLimit.burst), in: 1...1_000_000, "account-burst"))
        let format = try settings.value(logFormat, "log-format", default: LogFormat.text.rawValue)
        guard let logFormat = LogFormat(rawValue: format) else { throw ValidationError("--log-format must be text or json.") }
        let level = try settings.value(logLevel, "log-level", default: "info")
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        configuration.server.loopCount = try settings.optional(threads, "threads", derived: "\(ProcessSetup.usableCPUCount), the CPUs usable")
            .map { try check($0, in: 1...1024, "threads") } ?? ProcessSetup.usableCPUCount
        configuration.server.maxConnections = try check(try settings.value(maxConnections, "max-connections", default: defaults.server.maxConnections),
                                                        in: 1...1_000_000, "max-connections")
        configuration.server.maxConnectionsPerAddress = try check(
            try settings.value(maxConnectionsPerAddress, "max-connections-per-address", default: defaults.server.maxConnectionsPerAddress),
            in: 0...1_000_000, "max-connections-per-address")
        configuration.server.maxBodyBytes = try check(try settings.value(maxBody, "max-body", default: defaults.server.maxBodyBytes),
                                                      in: 0...(1 << 30), "max-body")
        let limits = defaults.server.parserLimits
        configuration.server.parserLimits.maxRequestLineBytes = try check(
            try settings.value(maxRequestLine, "max-request-line", default: limits.maxRequestLineBytes), in: 64...(1 << 20), "max-request-line")
        configuration.server.parserLimits.maxHeadBytes = try check(
            try settings.value(maxHeaderBytes, "max-header-bytes", default: limits.maxHeadBytes), in: 256...(16 << 20), "max-header-bytes")
        configuration.server.parserLimits.maxHeaderFields = try check(
            try settings.value(maxHeaderFields, "max-header-fields", default: limits.maxHeaderFields), in: 1...10_000, "max-header-fields")
        configuration.server.headerTimeout = try check(try settings.value(headerTimeout, "header-timeout", default: defaults.server.headerTimeout),
                                                       in: 0.01...3600, "header-timeout")
        configuration.server.bodyTimeout = try check(try settings.value(bodyTimeout, "body-timeout", default: defaults.server.bodyTimeout),
                                                     in: 0.01...3600, "body-timeout")
        configuration.server.idleTimeout = try check(try settings.value(idleTimeout, "idle-timeout", default: defaults.server.idleTimeout),
                                                     in: 0.01...86400, "idle-timeout")
        configuration.quotas.sessionsPerUser = try check(
            try settings.value(sessionsPerUser, "sessions-per-user", default: defaults.quotas.sessionsPerUser), in: 1...1_000_000, "sessions-per-user")
        configuration.passwordQueue.waiting = try check(
            try settings.value(passwordQueue, "password-queue", default: defaults.passwordQueue.waiting), in: 1...100_000, "password-queue")
        let idleDays = try check(try settings.value(sessionIdleDays, "session-idle-days", default: Double(defaults.sessionIdleTime) / 86_400_000),
                                 in: 0.0001...3650, "session-idle-days")
        configuration.sessionIdleTime = Int(idleDays * 86_400_000)
        configuration.accessLog = try settings.optional(accessLog, "access-log", derived: "none")
        configuration.bus = Self.list(try settings.value(bus, "bus", default: ""))
        if !configuration.bus.isEmpty, case .sqlite = configuration.database {
            throw ValidationError("--bus is for servers sharing a PostgreSQL database; this one has SQLite's file to itself.")
        }
        configuration.servedGrace = .seconds(try check(try settings.value(servedGrace, "served-grace", default: defaults.servedGrace.inSeconds),
                                                       in: 0...86400, "served-grace"))
        let proxies = try settings.value(trustProxy, "trust-proxy", default: "")
        configuration.trustedProxies = try Self.list(proxies).map { text in
            guard let range = AddressRange(text: text) else {
                throw ValidationError("--trust-proxy takes IP addresses or blocks of them (10.0.0.5, 10.0.0.0/8, fd00::/8); \(text) is none.")
            }
            return range
        }
        let origins = try settings.value(allowOrigin, "allow-origin", default: "")
        configuration.allowedOrigins = Set(try Self.list(origins).map { origin in
            guard let serialized = CrossOrigin.serialized(origin) else {
                throw ValidationError("--allow-origin takes origins such as https://app.example.com; \(origin) is not one.")
            }
            return serialized
        })
        do {
            configuration.server.browserFields = try BrowserFields(extraPolicy: try settings.value(contentSecurityPolicy, "content-security-policy", default: ""))
        } catch let invalid as BrowserFields.InvalidPolicy {
            throw ValidationError("--content-security-policy: \(invalid)")
        }
        configuration.push.hosts = defaults.push.hosts + Self.list(try settings.value(pushHosts, "push-hosts", default: ""))
        configuration.push.caFile = try settings.optional(pushCaFile, "push-ca-file", derived: "the system's")
        configuration.push.dropFailingAfter = try check(
            try settings.value(pushDropFailingAfter, "push-drop-failing-after", default: defaults.push.dropFailingAfter),
            in: 1...(365 * 86_400), "push-drop-failing-after")
        configuration.push.keyFile = try settings.optional(vapidKey, "vapid-key", derived: "kept in the database")
        let subject = try settings.value(vapidSubject, "vapid-subject", default: defaults.push.subject)
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://"),
              subject.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }) else {
            throw ValidationError("--vapid-subject must be a mailto: or https: address; got \(subject).")
        }
        configuration.push.subject = subject
        return (configuration, logLevel, logFormat)
    }

    /// The items of a comma-separated setting.
    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
    }

    /// Descriptors kept out of `--max-connections`: the database's connections,
    /// static files being read, epoll and eventfds, the listener's reserve.
    static let filesKeptForOtherUses = 64

    func run() throws {
        var settings = SettingsResolver()
        let (resolved, level, format) = try resolve(&settings)
        var configuration = resolved
        if printConfig {
            print(settings.table)
            return
        }
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = switch format {
            case .text: EscapingLogHandler(StreamLogHandler.standardError(label: label))
            case .json: JSONLogHandler(label: label)
            }
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tailor")
        // Before any thread starts, so every thread inherits the blocked signals.
        let openFiles = ProcessSetup.prepareServerProcess()
        let asked = configuration.server.maxConnections
        configuration.server.maxConnections = max(1, min(asked, openFiles - Self.filesKeptForOtherUses))
        if configuration.server.maxConnections < asked {
            logger.warning("--max-connections lowered from \(asked) to \(configuration.server.maxConnections): the open-files limit is \(openFiles), and \(Self.filesKeptForOtherUses) are kept for the database, files and streams of the server itself")
        }

        let application: Application
        do {
            application = try Application(configuration: configuration, logger: logger)
            try application.start()
            if let tokens = try application.seedDemoIfAsked() {
                print("demo users added: alice token \(tokens.alice), bob token \(tokens.bob)")
            }
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode.failure
        }
        let host = configuration.server.host
        let shownHost = host.contains(":") ? "[\(host)]" : host
        print("listening on http://\(shownHost):\(application.port)")
        fflush(nil)  // stdout may be a pipe: the line must leave now
        logger.info("serving \(configuration.publicFolder ?? "no files") with \(configuration.server.loopCount) loops; open-files limit \(openFiles)")

        var (signal, sender) = ProcessSetup.waitForControlSignal()
        // SIGHUP: the log files were rotated; SIGUSR1: accounts were disabled
        // (`tailor users disable`, which waits for the answer). The server goes on.
        while signal == SIGHUP || signal == SIGUSR1 {
            if signal == SIGHUP {
                application.reopenLogs()
                logger.info("signal \(signal): the access log reopened")
            } else {
                do {
                    let ended = try application.endDisabledAccounts()
                    logger.notice("signal \(signal): the streams and tokens of \(ended) disabled accounts ended")
                    AccountAdministration.confirm(to: sender)
                } catch {
                    logger.error("signal \(signal): disabled accounts could not be read: \(error)")
                }
            }
            (signal, sender) = ProcessSetup.waitForControlSignal()
        }
        logger.info("signal \(signal): shutting down")
        application.shutdown()
        logger.info("stopped")
    }
}
