import CSystem

/// Nanoseconds on the monotonic clock: deadlines never jump with the wall clock.
public enum MonotonicClock {
    public static var now: UInt64 { csystem_monotonic_nanoseconds() }

    public static func after(seconds: Double) -> UInt64 {
        now + UInt64(max(seconds, 0) * 1_000_000_000)
    }
}
