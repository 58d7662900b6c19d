import Glibc
import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews

/// The servers' presence signals over PostgreSQL's notifications: sent with
/// `pg_notify` and heard by `LISTEN`, on a connection and a thread
/// (`presence`) of their own. Nothing is stored: a signal is a notification
/// and no more, so typing costs the database no write.
///
/// When the connection fails it opens another after a growing pause and
/// says so (`connected`): signals sent meanwhile may be lost, and the driver
/// asks the others again. Signals waiting to be sent are at most
/// `maxWaiting`; past it the oldest are dropped, as a lost one would be.
final class PresenceChannel: Sendable {
    private let url: String
    private let waiting = Mutex<[String]>([])
    private let stopping = Atomic<Bool>(false)
    /// Ends the thread's wait: a signal to send, or the stop.
    private let wake: WakeSignal
    private let thread = Mutex<OwnThread?>(nil)
    private let failures: ThrottledLog

    static let maxWaiting = 10_000
    /// Added to the connection's application name.
    static let applicationNameSuffix = "-presence"

    init(url: String, logger: Logger) throws {
        self.url = url
        wake = try WakeSignal()
        failures = ThrottledLog(logger: logger, level: .warning)
    }

    /// Starts listening: `heard` gets each payload, `connected` is called on
    /// the channel's thread each time a connection is ready.
    func start(heard: @escaping @Sendable (String) -> Void, connected: @escaping @Sendable () -> Void) {
        thread.withLock { $0 = OwnThread(name: "presence") { self.run(heard: heard, connected: connected) } }
    }

    func send(_ payload: String) {
        waiting.withLock { waiting in
            if waiting.count >= Self.maxWaiting { waiting.removeFirst(waiting.count - Self.maxWaiting + 1) }
            waiting.append(payload)
        }
        wake.signal()
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        if let thread = thread.withLock({ $0.take() }) { thread.join() }
        wake.close()
    }

    private func run(heard: @Sendable (String) -> Void, connected: @Sendable () -> Void) {
        var pause = 0.05
        while !stopping.load(ordering: .acquiring) {
            do {
                let connection = try PostgresConnection(url: url)
                try Store.listenToPresence(on: connection, namedWith: Self.applicationNameSuffix)
                pause = 0.05
                connected()
                while !stopping.load(ordering: .acquiring) {
                    try sendWaiting(on: connection)
                    for payload in try connection.takeNotifications() { heard(payload) }
                    wait(socket: connection.socket, seconds: 0.5)
                }
                // The last signals: a stopping server's goodbye.
                try sendWaiting(on: connection)
            } catch {
                failures.log("presence signals could not be sent or heard, trying again in \(Int(pause * 1000)) ms: \(error)")
                wait(socket: nil, seconds: pause)
                pause = min(pause * 2, 2)
            }
        }
    }

    private func sendWaiting(on connection: PostgresConnection) throws {
        for payload in waiting.withLock({ $0.take() }) { try Store.notifyPresence(payload, on: connection) }
    }

    /// Until the connection has something to read, a signal is to be sent, or time is up.
    private func wait(socket: Int32?, seconds: Double) {
        var descriptors = [pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&descriptors, nfds_t(descriptors.count), Int32(seconds * 1000))
        wake.drain()
    }
}

private extension Array {
    /// The elements, leaving the array empty.
    mutating func take() -> [Element] {
        defer { removeAll() }
        return self
    }
}
