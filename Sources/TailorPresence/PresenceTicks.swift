import Synchronization
import TailorLoop

/// When the presence driver ticks: once something is due (a grace, a
/// typing, a show interval or another server's lifetime ends, or this
/// server's heartbeat), and no sooner than `spacing` after the last tick,
/// so that graces ending close together make one tick. A server with
/// nothing pending wakes for its heartbeat and the others' lifetimes alone:
/// a tick every fraction of a second woke its loop and Swift's timer thread
/// several times a second for nothing.
///
/// A tick scheduled is a task that sleeps on the loop's timers until its time. A change that
/// brings the time nearer (`due(at:)`) starts another; the one that wakes
/// to find another time scheduled does nothing.
final class PresenceTicks: Sendable {
    private struct Schedule {
        /// The time of the tick scheduled (MonotonicClock); `.max`: none.
        var next: UInt64 = .max
        /// When the last tick began.
        var last: UInt64 = 0
        /// The ticks' work, from `start` to `stop`: returns when the next tick is due.
        var tick: (@Sendable () -> UInt64)?
        /// The tasks sleeping until their tick, by its time: cancelled at the stop.
        var sleeping: [UInt64: Task<Void, Never>] = [:]
    }

    /// Owned by the lock: inputs schedule ticks from any thread, the ticks run on `executor`.
    private let schedule = Mutex(Schedule())
    private let spacing: UInt64
    private let loop: EventLoop

    init(spacing: Duration, on loop: EventLoop) {
        self.spacing = MonotonicClock.nanoseconds(spacing)
        self.loop = loop
    }

    /// Ticks with `tick` at once, and then whenever it or `due(at:)` says.
    func start(_ tick: @escaping @Sendable () -> UInt64) {
        schedule.withLock { $0.tick = tick }
        due(at: 0)
    }

    /// No tick runs after this returns but one begun already.
    func stop() {
        let sleeping = schedule.withLock { schedule in
            schedule.tick = nil
            defer { schedule.sleeping = [:] }
            return schedule.sleeping.values
        }
        for task in sleeping { task.cancel() }
    }

    /// Something is due at `time` (`.max`: nothing): a tick then at the
    /// latest, or `spacing` after the last one.
    func due(at time: UInt64) {
        schedule.withLock { schedule in
            let time = max(time, schedule.last + spacing)
            guard schedule.tick != nil, time < schedule.next else { return }
            schedule.next = time
            // A task sleeping until then already (scheduled before a nearer time): it ticks.
            guard schedule.sleeping[time] == nil else { return }
            schedule.sleeping[time] = Task(executorPreference: loop) { [self] in
                if time > MonotonicClock.now {
                    do {
                        try await loop.sleep(until: time)
                    } catch {
                        return  // stopped
                    }
                }
                fire(scheduledFor: time)
            }
        }
    }

    private func fire(scheduledFor time: UInt64) {
        let tick: (@Sendable () -> UInt64)? = schedule.withLock { schedule in
            schedule.sleeping[time] = nil
            guard schedule.next == time, let tick = schedule.tick else { return nil }
            schedule.next = .max
            schedule.last = MonotonicClock.now
            return tick
        }
        guard let tick else { return }
        due(at: tick())
    }
}
