import CSystem

/// Nanoseconds on the monotonic clock: deadlines never jump with the wall clock.
public enum MonotonicClock {
    public static var now: UInt64 { csystem_monotonic_nanoseconds() }

    public static func after(seconds: Double) -> UInt64 {
        now + UInt64(max(seconds, 0) * 1_000_000_000)
    }

    /// `duration` from now.
    public static func after(_ duration: Duration) -> UInt64 {
        now + nanoseconds(duration)
    }

    /// `duration` in this clock's unit; none when negative.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
    }
}

extension Duration {
    /// In seconds, as flags take them and logs say them.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// In whole milliseconds, as C libraries and PostgreSQL take them.
    public var inMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
