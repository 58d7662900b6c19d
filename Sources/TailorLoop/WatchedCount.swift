import Glibc

/// A count that a thread can wait on until it reaches what it needs, or a
/// deadline passes: waking at the change itself rather than polling for it.
/// Changing it costs a lock and a wake-up call that finds nobody waiting in
/// the ordinary case; meant for counts that change per connection, not per
/// request.
///
/// `@unchecked Sendable`: `value` is read and written only while holding
/// `mutex`; the mutex and the condition live at addresses of their own that
/// never move, as pthreads require.
public final class WatchedCount: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var value = 0

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines are on the monotonic clock, as MonotonicClock's.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    public var current: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return value
    }

    /// Adds `amount` (negative to take away) and returns the new count.
    @discardableResult
    public func add(_ amount: Int) -> Int {
        pthread_mutex_lock(mutex)
        value += amount
        let now = value
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        return now
    }

    /// Waits until `condition` holds for the count or the monotonic clock
    /// passes `deadline` (nanoseconds, as `MonotonicClock.now`); whether it holds.
    public func wait(until condition: (Int) -> Bool, deadline: UInt64) -> Bool {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !condition(value) {
            if pthread_cond_timedwait(changed, mutex, &time) == ETIMEDOUT { return condition(value) }
        }
        return true
    }
}
