/// What a connection reads into, writes from and parses with, kept by the task
/// that serves connections (`IdleConnectionTasks`) from one connection to the
/// next: a client that closes after each request then costs the loop no new
/// buffers. Nothing of one connection may reach the next, so each starts with
/// `emptied()`.
final class ConnectionBuffers {
    var parser: HTTPRequestParser
    var inbound = InboundBuffer(capacity: ConnectionBuffers.inboundCapacity)
    var outbound = OutboundQueue()

    /// A connection's first read buffer, and what an idle one keeps.
    static let inboundCapacity = 4096

    init(limits: HTTPRequestParser.Limits) {
        parser = HTTPRequestParser(limits: limits)
    }

    /// Drops whatever the last connection left (bytes it sent and nobody read,
    /// answers never written, a half-parsed head) and gives back what a large
    /// request grew; returns the buffers, for a new connection.
    func emptied() -> ConnectionBuffers {
        inbound.consume(inbound.count)
        inbound.shrinkIfEmpty()
        outbound.discardAll()
        parser.reset()
        parser.shrink()
        return self
    }
}
