import Glibc
import Logging
import Synchronization
import TailorLoop

/// An HTTP/1.1 server on its own event loops.
///
/// Each accepted connection is served by a task bound to the loop that
/// accepted it, which serves the connection's requests one after another until
/// it closes, or until it hands the connection to a response stream; then the
/// task waits for the loop's next connection (`IdleConnectionTasks`).
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    public let responder: HTTPResponder
    public let logger: Logger
    /// The loops serving connections; background work of the application (timers,
    /// the chatbot) may run on them too, off the shared cooperative pool.
    public let group: EventLoopGroup
    private let listener: SocketListener
    /// The Date field's bytes, one per loop, indexed by the loop's index; each
    /// opened only inside tasks on its own loop.
    private let dates: [ThreadConfined<HTTPDate>]
    /// Each loop's tasks waiting for a connection, indexed like `dates`.
    private let idleTasks: [ThreadConfined<IdleConnectionTasks>]
    /// Tasks a loop keeps waiting for connections at most.
    static let idleTasksPerLoop = 64
    private let activeConnections: WatchedCount
    /// Open connections per client address, when they are limited.
    private let connectionsByAddress = Mutex<[PeerAddress: Int]>([:])
    private let draining = Atomic<Bool>(false)

    /// Binds the listening socket at once, so a port in use fails here. The
    /// loops are `group`'s when given (work of the application already runs
    /// on them), else made here, `configuration.loopCount` of them; open
    /// connections are counted in `connections`, which others may read.
    public init(configuration: HTTPServerConfiguration, group: EventLoopGroup? = nil, connections: WatchedCount = WatchedCount(),
                responder: HTTPResponder, logger: Logger = Logger(label: "tailor.http")) throws {
        activeConnections = connections
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        let exhaustion = ThrottledLog(logger: logger, level: .warning, burst: 1, interval: 10)
        listener = try SocketListener(host: configuration.host, port: configuration.port) { code in
            exhaustion.log("accepting paused: no file descriptor left (errno \(code)); raise the open-files limit or lower --max-connections")
        }
        self.group = try group ?? EventLoopGroup(loopCount: configuration.loopCount)
        dates = self.group.loops.map { _ in ThreadConfined(HTTPDate()) }
        idleTasks = self.group.loops.map { _ in ThreadConfined(IdleConnectionTasks(limit: Self.idleTasksPerLoop)) }
    }

    /// The port listened on (the chosen one when configured with 0).
    public var port: Int { listener.port }

    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Connections open now.
    public var connectionCount: Int { activeConnections.current }

    /// Waits until `condition` holds for the number of open connections, or
    /// `timeout` seconds pass; whether it holds.
    public func waitForConnections(timeout: Double, until condition: (Int) -> Bool) -> Bool {
        activeConnections.wait(until: condition, deadline: MonotonicClock.after(seconds: timeout))
    }

    public func start() throws {
        try listener.start(on: group) { [self] fd, peer, loop in accept(fd, from: peer, on: loop) }
    }

    /// Stops accepting, closes idle connections, lets requests in flight finish
    /// within the grace period, then stops the loops.
    public func shutdown() {
        guard !draining.exchange(true, ordering: .relaxed) else { return }
        listener.stop(on: group)
        group.executeOnEachAndWait { [idleTasks] loop in
            idleTasks[loop.index].value.stop()
            loop.closeIdleConnections()
        }
        let giveUp = MonotonicClock.after(seconds: configuration.shutdownGracePeriod)
        while MonotonicClock.now < giveUp {
            if activeConnections.wait(until: { $0 == 0 }, deadline: min(giveUp, MonotonicClock.after(seconds: 0.005))) { break }
            // A connection that finished a request since the last sweep is idle now.
            group.executeOnEachAndWait { $0.closeIdleConnections() }
        }
        group.shutdown()
    }

    private func accept(_ fd: Int32, from peer: PeerAddress, on loop: EventLoop) {
        // Its address first: a connection counted open is one its address
        // counts too, so a client that sees the count sees the limit applied.
        guard !isDraining, admit(peer) else {
            refuse(fd)
            return
        }
        guard activeConnections.add(1) <= configuration.maxConnections else {
            activeConnections.add(-1)
            release(peer)
            refuse(fd)
            return
        }
        let socket: SocketConnection
        do {
            socket = try loop.adopt(fd: fd)
        } catch {
            logger.warning("could not take a connection: \(error)")
            close(fd)
            release(peer)
            activeConnections.add(-1)
            return
        }
        // Counted until the socket closes, after its task or, for a stream, later.
        socket.closeHandler = { [self] in
            release(peer)
            activeConnections.add(-1)
        }
        let connection = AcceptedConnection(socket: socket, peer: peer)
        let idle = idleTasks[loop.index]
        if idle.value.handOver(connection) { return }
        let date = dates[loop.index]
        Task(executorPreference: loop) {
            let buffers = ConnectionBuffers(limits: self.configuration.parserLimits)
            var next: AcceptedConnection? = connection
            while let connection = next {
                await HTTPConnection(socket: connection.socket, peer: connection.peer, server: self, date: date.value,
                                     buffers: buffers.emptied()).run()
                next = await idle.value.next()
            }
        }
    }

    /// Counts a connection from `peer`, or refuses it past the per-address limit
    /// (per /64 network for IPv6).
    private func admit(_ peer: PeerAddress) -> Bool {
        let limit = configuration.maxConnectionsPerAddress
        guard limit > 0 else { return true }
        return connectionsByAddress.withLock { counts in
            let count = counts[peer.network, default: 0]
            guard count < limit else { return false }
            counts[peer.network] = count + 1
            return true
        }
    }

    private func release(_ peer: PeerAddress) {
        guard configuration.maxConnectionsPerAddress > 0 else { return }
        connectionsByAddress.withLock { counts in
            let count = counts[peer.network, default: 1] - 1
            counts[peer.network] = count == 0 ? nil : count
        }
    }

    /// Over the connection limit: a 503 written straight to the new socket, which
    /// is then closed. It costs no task and no buffer.
    private func refuse(_ fd: Int32) {
        let bytes = Self.overloadedResponse.bytes
        _ = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        close(fd)
    }

    private static let overloadedResponse: SharedBytes = {
        let body = HTTPError.overloaded.response.body
        return SharedBytes("HTTP/1.1 503 Service Unavailable\r\nServer: Tailor\r\n"
            + "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\nRetry-After: 1\r\n\r\n" + String(decoding: body.bytes, as: UTF8.self))
    }()
}

