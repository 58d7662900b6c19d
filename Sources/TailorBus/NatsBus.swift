import CNats
import Glibc
import Logging
import Synchronization
import TailorLoop

/// One connection to NATS (a server, or any of a cluster's), shared by the
/// server's threads. NATS's official C client does the talking: it connects
/// in the background when the bus cannot be reached at start, reconnects by
/// itself when the connection drops (forever, every `reconnectWait`), keeps
/// what is published meanwhile in a buffer (`reconnectBufferBytes`; past it a
/// publish fails, and is counted), and calls each subscription's handler on
/// a thread of its own.
///
/// The bus is a wake-up and may lose messages: whoever listens to it also
/// reads what it needs from PostgreSQL, so nothing here retries.
public final class NatsBus: Sendable {
    /// `natsConnection *`, made once and destroyed by `close`. Unchecked
    /// because a C pointer is not `Sendable`; NATS's client locks the
    /// connection itself, so any thread may publish, subscribe or ask its
    /// status on it.
    nonisolated(unsafe) private let connection: OpaquePointer
    /// The subscriptions made, each with its handler, for `close` to end:
    /// `subscribe` may be called from any thread.
    private let subscriptions = Mutex<[Subscription]>([])
    private let counts = Counts()
    /// The connection and the subscriptions whose callbacks NATS's client may
    /// still call. The client calls them from its own threads, also after
    /// `natsConnection_Close` and `natsSubscription_Unsubscribe` return, so
    /// what a callback finds is let go by the callback NATS calls last for
    /// its owner (the connection's closed callback, a subscription's
    /// completion), and `close` waits for those.
    private let open = WatchedCount()
    private let logger: Logger
    private let connectionEvents: ConnectionEvents

    /// How long `close` waits for NATS's client to call its last callbacks.
    static let closeWait: Duration = .seconds(5)

    /// How long a reconnection waits after a failed one.
    static let reconnectWait: Duration = .milliseconds(500)
    /// Bytes published while away that are kept for the reconnection.
    static let reconnectBufferBytes: Int32 = 8 << 20
    /// How often the connection is checked with a ping, and how many
    /// unanswered pings mean it is gone (a peer cut off, not closed).
    static let pingInterval: Duration = .seconds(2)
    static let pingsOut: Int32 = 2
    /// How long a write to NATS may block: past it the connection is taken
    /// for lost (and reconnected, what is published meanwhile kept), rather
    /// than a connection that died silently hold the writer until its pings fail.
    static let writeDeadline: Duration = .milliseconds(500)

    /// Connects to the first of `urls` that answers (`nats://host:port`);
    /// `name` is how the NATS server lists the connection. A bus that cannot
    /// be reached yet is connected to in the background.
    public init(urls: [String], name: String, logger: Logger) throws(BusError) {
        self.logger = logger
        connectionEvents = ConnectionEvents(counts: counts, open: open, logger: logger)
        var options: OpaquePointer?
        try Self.check(natsOptions_Create(&options), "the bus's options could not be made")
        defer { natsOptions_Destroy(options) }
        var servers = urls.map { strdup($0) }
        defer { for server in servers { free(server) } }
        try servers.withUnsafeMutableBufferPointer { buffer throws(BusError) in
            let pointers = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UnsafePointer<CChar>?.self)
            try Self.check(natsOptions_SetServers(options, pointers, Int32(buffer.count)), "the bus's addresses \(urls) were refused")
        }
        natsOptions_SetName(options, name)
        natsOptions_SetMaxReconnect(options, -1)
        natsOptions_SetReconnectWait(options, Self.reconnectWait.inMilliseconds)
        natsOptions_SetReconnectBufSize(options, Self.reconnectBufferBytes)
        natsOptions_SetPingInterval(options, Self.pingInterval.inMilliseconds)
        natsOptions_SetMaxPingsOut(options, Self.pingsOut)
        natsOptions_SetWriteDeadline(options, Self.writeDeadline.inMilliseconds)
        // What this connection publishes is not sent back to its own subscriptions: a server knows its own commits.
        natsOptions_SetNoEcho(options, true)
        // Released by the closed callback, which NATS calls after every other callback of the connection.
        let events = Unmanaged.passRetained(connectionEvents).toOpaque()
        natsOptions_SetDisconnectedCB(options, { _, closure in ConnectionEvents.of(closure).disconnected() }, events)
        natsOptions_SetReconnectedCB(options, { _, closure in ConnectionEvents.of(closure).reconnected() }, events)
        natsOptions_SetClosedCB(options, { _, closure in ConnectionEvents.closed(closure) }, events)
        // With a connected callback a first connection that fails is tried again in the background; without one, Connect would block until it succeeds.
        natsOptions_SetRetryOnFailedConnect(options, true, { _, closure in ConnectionEvents.of(closure).connected() }, events)
        var made: OpaquePointer?
        let status = natsConnection_Connect(&made, options)
        guard status == NATS_OK || status == NATS_NOT_YET_CONNECTED, let made else {
            // The events stay retained: the client may yet call the closed callback of the connection it gave up.
            throw BusError(what: "the bus at \(urls) could not be connected to", status: status)
        }
        open.add(1)
        if status == NATS_NOT_YET_CONNECTED { logger.warning("the bus at \(urls) does not answer yet: connecting in the background") }
        connection = made
    }

    /// Sends `payload` to whoever listens to `subject`, soon (the client's
    /// own thread flushes what is published); whether it was taken, to be
    /// sent now or after a reconnection.
    @discardableResult
    public func publish(_ payload: String, to subject: String) -> Bool {
        var payload = payload
        let status = payload.withUTF8 { bytes in
            natsConnection_Publish(connection, subject, bytes.baseAddress, Int32(bytes.count))
        }
        if status == NATS_OK {
            counts.published.add(1, ordering: .relaxed)
            return true
        }
        counts.notPublished.add(1, ordering: .relaxed)
        return false
    }

    /// Calls `handler` with each message published to `subject`, on the
    /// client's thread for this subscription, until the bus is closed. The
    /// bytes are the client's, valid during the call only: a handler copies
    /// what it keeps.
    public func subscribe(to subject: String, _ handler: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) throws(BusError) {
        let box = Unmanaged.passRetained(Handler(handler, counts: counts, open: open))
        var subscription: OpaquePointer?
        let status = natsConnection_Subscribe(&subscription, connection, subject, { _, _, message, closure in
            guard let message, let closure else { return }
            defer { natsMsg_Destroy(message) }
            let bytes = UnsafeRawBufferPointer(start: natsMsg_GetData(message), count: Int(natsMsg_GetDataLength(message)))
            Unmanaged<Handler>.fromOpaque(closure).takeUnretainedValue().received(bytes)
        }, box.toOpaque())
        guard status == NATS_OK, let subscription else {
            box.release()
            throw BusError(what: "the bus's subject \(subject) could not be subscribed to", status: status)
        }
        open.add(1)
        // Called once the subscription is closed and its handler has returned for the last time.
        natsSubscription_SetOnCompleteCB(subscription, { closure in Handler.completed(closure) }, box.toOpaque())
        subscriptions.withLock { $0.append(Subscription(pointer: subscription)) }
    }

    /// Keeps the messages published to `subject` until `QueuedMessages.take`
    /// takes them, on the taker's thread: no thread of the client's is woken
    /// for each, only the one that reads the connection. For messages many
    /// and rarely urgent, which a thread takes when it wakes for something else.
    public func queue(_ subject: String) throws(BusError) -> QueuedMessages {
        var subscription: OpaquePointer?
        let status = natsConnection_SubscribeSync(&subscription, connection, subject)
        guard status == NATS_OK, let subscription else {
            throw BusError(what: "the bus's subject \(subject) could not be subscribed to", status: status)
        }
        subscriptions.withLock { $0.append(Subscription(pointer: subscription)) }
        return QueuedMessages(subscription: subscription, counts: counts)
    }

    /// Whether the connection is up now.
    public var isConnected: Bool {
        natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED
    }

    /// What the bus carried, for `/metrics`.
    public var statistics: BusStatistics {
        BusStatistics(connected: isConnected, published: counts.published.load(ordering: .relaxed),
                      notPublished: counts.notPublished.load(ordering: .relaxed), received: counts.received.load(ordering: .relaxed),
                      disconnections: counts.disconnections.load(ordering: .relaxed),
                      subscriptions: subscriptions.withLock { $0.count })
    }

    /// Sends what is published, waits for the handlers and the connection's
    /// callbacks to end, and lets go of the connection. Nothing is published
    /// or handled after.
    public func close() {
        if isConnected { natsConnection_FlushTimeout(connection, 1000) }
        let made = subscriptions.withLock { $0 }
        for subscription in made { natsSubscription_Unsubscribe(subscription.pointer) }
        connectionEvents.closing.store(true, ordering: .relaxed)
        natsConnection_Close(connection)
        let ended = open.wait(until: { $0 == 0 }, deadline: MonotonicClock.after(Self.closeWait))
        for subscription in made { natsSubscription_Destroy(subscription.pointer) }
        natsConnection_Destroy(connection)
        if !ended {
            logger.warning("the bus's client had not ended \(open.current) of its callbacks \(Self.closeWait) after it was closed: what they hold is kept")
        }
    }

    private static func check(_ status: natsStatus, _ what: @autoclosure () -> String) throws(BusError) {
        guard status == NATS_OK else { throw BusError(what: what(), status: status) }
    }
}

/// A `natsSubscription *`. Unchecked because a C pointer is not
/// `Sendable`: it is only kept under the bus's lock and used by `close`,
/// once, after every other use of the bus.
private struct Subscription: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The messages of a subject kept for whoever takes them (`NatsBus.queue`).
/// Unchecked because a C pointer is not `Sendable`: NATS's client locks the
/// subscription itself. Taken from until the bus is closed, not after.
public struct QueuedMessages: @unchecked Sendable {
    fileprivate let subscription: OpaquePointer
    fileprivate let counts: Counts

    /// Calls `each` with every message kept, in order, without waiting. The
    /// bytes are the client's, valid during the call only.
    public func take(_ each: (UnsafeRawBufferPointer) -> Void) {
        var message: OpaquePointer?
        while natsSubscription_NextMsg(&message, subscription, 0) == NATS_OK, let taken = message {
            counts.received.add(1, ordering: .relaxed)
            each(UnsafeRawBufferPointer(start: natsMsg_GetData(taken), count: Int(natsMsg_GetDataLength(taken))))
            natsMsg_Destroy(taken)
            message = nil
        }
    }
}

/// What the bus has done since it was made.
public struct BusStatistics: Sendable, Equatable {
    public let connected: Bool
    public let published: Int
    /// Publishes refused: the connection closed, or the reconnection's buffer full.
    public let notPublished: Int
    public let received: Int
    public let disconnections: Int
    public let subscriptions: Int
}

/// The bus refused: what was asked, and NATS's word for why.
public struct BusError: Error, CustomStringConvertible {
    let what: String
    let status: natsStatus

    public var description: String {
        "\(what): \(String(cString: natsStatus_GetText(status)))"
    }
}

/// The bus's counters, written by the client's threads.
private final class Counts: Sendable {
    let published = Atomic<Int>(0)
    let notPublished = Atomic<Int>(0)
    let received = Atomic<Int>(0)
    let disconnections = Atomic<Int>(0)
}

/// A subscription's handler, as its C callbacks find it.
private final class Handler: Sendable {
    private let handle: @Sendable (UnsafeRawBufferPointer) -> Void
    private let counts: Counts
    private let open: WatchedCount

    init(_ handle: @escaping @Sendable (UnsafeRawBufferPointer) -> Void, counts: Counts, open: WatchedCount) {
        self.handle = handle
        self.counts = counts
        self.open = open
    }

    func received(_ bytes: UnsafeRawBufferPointer) {
        counts.received.add(1, ordering: .relaxed)
        handle(bytes)
    }

    /// The subscription's last callback: the handler retained for it is let go.
    static func completed(_ closure: UnsafeMutableRawPointer?) {
        let handler = Unmanaged<Handler>.fromOpaque(closure!)
        let open = handler.takeUnretainedValue().open
        handler.release()
        open.add(-1)
    }
}

/// The connection's comings and goings, logged and counted.
private final class ConnectionEvents: Sendable {
    private let counts: Counts
    private let open: WatchedCount
    private let logger: Logger
    /// Set by `close`: the disconnection that closing makes is no loss.
    let closing = Atomic<Bool>(false)

    init(counts: Counts, open: WatchedCount, logger: Logger) {
        self.counts = counts
        self.open = open
        self.logger = logger
    }

    static func of(_ closure: UnsafeMutableRawPointer?) -> ConnectionEvents {
        Unmanaged<ConnectionEvents>.fromOpaque(closure!).takeUnretainedValue()
    }

    func disconnected() {
        guard !closing.load(ordering: .relaxed) else { return }
        counts.disconnections.add(1, ordering: .relaxed)
        logger.warning("the bus's connection was lost: reconnecting; the feed is read from PostgreSQL meanwhile")
    }

    func connected() {
        logger.notice("the bus is connected")
    }

    func reconnected() {
        logger.notice("the bus's connection is back")
    }

    /// The connection's last callback: the events retained for it are let go.
    static func closed(_ closure: UnsafeMutableRawPointer?) {
        let events = Unmanaged<ConnectionEvents>.fromOpaque(closure!)
        let open = events.takeUnretainedValue().open
        events.release()
        open.add(-1)
    }
}
