import TailorLoop

/// Where the server listens and every limit it enforces. Each has a flag of
/// `tailor serve`; the defaults are those of the API contract.
public struct HTTPServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 lets the kernel choose; `HTTPServer.port` tells which.
    public var port = 8080
    /// Event loops (threads); one per usable CPU.
    public var loopCount = ProcessSetup.usableCPUCount
    /// Request line, head size and field count limits (414, 431).
    public var parserLimits = HTTPRequestParser.Limits()
    /// Largest request body (413 past it).
    public var maxBodyBytes = 1024 * 1024
    /// Open connections at most; past it new ones get 503 and are closed.
    public var maxConnections = 10_000
    /// Open connections from one client address at most (503 past it); 0 for
    /// no such limit, as behind a proxy whose connections all come from one.
    public var maxConnectionsPerAddress = 256
    /// Seconds for a request's head to arrive, counted from the connection's
    /// accept for its first request and from the first byte for later ones,
    /// and for each piece of a body: a slow client cannot hold a connection longer.
    public var headerTimeout = 10.0
    /// Seconds for a whole request body to arrive, however it is dribbled.
    public var bodyTimeout = 30.0
    /// Seconds an idle keep-alive connection (or a stalled write) is kept.
    public var idleTimeout = 60.0
    /// Seconds a graceful shutdown waits for requests in flight.
    public var shutdownGracePeriod = 4.0
    /// The fields browsers act on, added to every answer by its kind.
    public var browserFields = try! BrowserFields()

    public init() {}
}
