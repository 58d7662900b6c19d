/// A long-lived part of the server (the HTTP server, the writer, the feed's
/// follower, presence, push delivery, the chatbot, the tickers): what starts
/// it and what stops it. `Lifecycle` runs each as a service of one group.
struct Part: Sendable {
    let name: String
    let start: @Sendable () throws -> Void
    let stop: @Sendable () -> Void

    init(_ name: String, start: @escaping @Sendable () throws -> Void = {}, stop: @escaping @Sendable () -> Void) {
        self.name = name
        self.start = start
        self.stop = stop
    }
}
