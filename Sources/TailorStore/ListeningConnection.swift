import TailorLoop

/// A PostgreSQL connection of a thread's own that listens for notifications
/// (the feed's follower, presence signals), kept open until the thread
/// stops: when it cannot be opened or fails (the database restarts), the
/// failure is logged and another is opened after a pause that doubles from
/// 50 ms up to 2 s, cut short by the thread's wake.
package enum ListeningConnection {
    /// Opens a connection, readies it with `prepare` and runs `session` on
    /// it, again and again, until `isStopping`; `failing` says what a failure
    /// stopped, for `log`.
    package static func keep(url: String, failing: String, log: (String) -> Void, wake: WakeSignal, isStopping: () -> Bool,
                             prepare: (PostgresConnection) throws -> Void, session: (PostgresConnection) throws -> Void) {
        var pause = 0.05
        while !isStopping() {
            do {
                let connection = try PostgresConnection(url: url)
                try prepare(connection)
                pause = 0.05
                try session(connection)
            } catch {
                log("\(failing), trying again in \(Int(pause * 1000)) ms: \(error)")
                wake.wait(seconds: pause)
                pause = min(pause * 2, 2)
            }
        }
    }
}

/// What a listening connection hears for another part that listens through
/// it: that it is listening again (what was sent meanwhile is lost), or a
/// notification's payload.
package enum ChannelNews: Sendable, Equatable {
    case listening
    case payload(String)
}
