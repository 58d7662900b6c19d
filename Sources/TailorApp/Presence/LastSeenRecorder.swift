import Logging
import TailorHTTP
import TailorLoop
import TailorPresence

/// Records through the router the last seens that presence hands over
/// (`PresenceDriver.lastSeenWrites`), each as a write of its own, so that
/// many users leaving at once share the writer's next commits. A part of its
/// own, made after the router and stopped after presence: at its stop it
/// waits, at most `goodbyeWait` seconds, for the last seens of the users
/// still here, which presence hands over as it stops.
final class LastSeenRecorder: Sendable {
    private let presence: PresenceDriver
    private let events: EventRouter
    private let executor: any TaskExecutor
    private let failures: ThrottledLog
    /// Writes under way, and whether the writes handed over have ended.
    private let outstanding = WatchedCount()

    /// Seconds a stopping server waits for its users' last seen to be recorded.
    static let goodbyeWait = 2.0

    init(presence: PresenceDriver, events: EventRouter, executor: any TaskExecutor, logger: Logger) {
        self.presence = presence
        self.events = events
        self.executor = executor
        failures = ThrottledLog(logger: logger)
    }

    var part: Part {
        Part("last seen", start: { self.start() })
    }

    /// Follows what presence hands over until it stops; the follower counts
    /// as one write under way until then. Stopping waits for what presence
    /// handed over as it stopped.
    func start() -> Part.Stop {
        outstanding.add(1)
        Task(executorPreference: executor) { [self] in
            for await write in presence.lastSeenWrites {
                outstanding.add(1)
                Task(executorPreference: executor) { [self] in
                    await record(write)
                    outstanding.add(-1)
                }
            }
            outstanding.add(-1)
        }
        return { [self] in waitForTheLastWrites() }
    }

    private func waitForTheLastWrites() {
        if !outstanding.wait(until: { $0 == 0 }, deadline: MonotonicClock.after(seconds: Self.goodbyeWait)) {
            failures.log("the server stopped before the last seen of every user on it was recorded")
        }
    }

    private func record(_ write: PresenceDriver.LastSeenWrite) async {
        let news: Bool
        do {
            news = try await events.noteLastSeen(user: write.user, at: write.time)
        } catch {
            failures.log("when user \(write.user) was last seen could not be recorded\(write.isGoodbye ? " as the server stopped" : ""): \(error)")
            news = false
        }
        if !news && !write.isGoodbye { presence.lastSeenNotRecorded(of: write.user) }
    }
}
