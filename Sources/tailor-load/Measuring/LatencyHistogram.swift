/// Latencies in microseconds, counted in log-linear buckets as HdrHistogram
/// does: exact below 128 µs, then 64 buckets per doubling, so any recorded
/// value is known to within 1.6% whatever its size, in fixed memory.
struct LatencyHistogram: Sendable {
    private static let linearLimit: UInt64 = 128
    private static let bucketsPerDoubling = 64

    private var counts = [UInt64](repeating: 0, count: 128 + 58 * 64)
    private(set) var count: UInt64 = 0
    private(set) var maximum: UInt64 = 0

    mutating func record(microseconds value: UInt64) {
        counts[Self.bucket(of: value)] += 1
        count += 1
        maximum = max(maximum, value)
    }

    mutating func record(nanoseconds value: UInt64) {
        record(microseconds: value / 1_000)
    }

    /// The value at or below which `fraction` of the recorded values lie: the
    /// highest value of the bucket that holds it (never an understatement).
    func percentile(_ fraction: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((Double(count) * fraction).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank { return min(Self.highestValue(in: index), maximum) }
        }
        return maximum
    }

    static func bucket(of value: UInt64) -> Int {
        guard value >= linearLimit else { return Int(value) }
        let shift = (64 - value.leadingZeroBitCount) - 7
        return Int(linearLimit) + (shift - 1) * bucketsPerDoubling + Int((value >> UInt64(shift)) - 64)
    }

    static func highestValue(in bucket: Int) -> UInt64 {
        guard bucket >= Int(linearLimit) else { return UInt64(bucket) }
        let shift = (bucket - Int(linearLimit)) / bucketsPerDoubling + 1
        let sub = UInt64((bucket - Int(linearLimit)) % bucketsPerDoubling + 64)
        return ((sub + 1) << UInt64(shift)) - 1
    }
}
