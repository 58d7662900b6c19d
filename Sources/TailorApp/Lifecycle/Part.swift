/// A long-lived part of the server (the HTTP server, the writer, the feed's
/// follower, presence, push delivery, the chatbot, the tickers): what starts
/// it, which gives back what stops it. `Lifecycle` runs each as a service of
/// one group, and calls the stop once, at the group's shutdown.
///
/// A running part's task or thread is kept in its stop, not by the part for
/// a later call to find: no part holds one under a lock.
struct Part: Sendable {
    /// Ends a running part, and returns once it has ended.
    typealias Stop = @Sendable () -> Void

    let name: String
    let start: @Sendable () throws -> Stop

    init(_ name: String, start: @escaping @Sendable () throws -> Stop) {
        self.name = name
        self.start = start
    }

    /// A part with nothing to start, only `stop` to do at shutdown.
    init(_ name: String, stop: @escaping Stop) {
        self.init(name, start: { stop })
    }
}
