import Synchronization
import TailorLoop

/// How fast one client may act: `burst` actions at once, then `perSecond`
/// on average. A rate of 0 sets no limit.
public struct RateLimit: Sendable, Equatable {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    public static let unlimited = RateLimit(perSecond: 0, burst: 0)
    public var isUnlimited: Bool { perSecond == 0 }
}

/// A token bucket per key (a user, a client address). Each action takes a
/// token; tokens come back at the limit's rate up to its burst.
final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    enum Decision: Equatable {
        case allowed
        /// Whole seconds until a token is back, for `Retry-After`.
        case refused(retryAfter: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    let limit: RateLimit
    /// One account's or address's requests come on any loop: they draw on one bucket.
    private let buckets = Mutex<[Key: Bucket]>([:])
    /// Past this many keys, buckets that have filled up again are forgotten:
    /// a full bucket is what a new key gets anyway.
    static var maxKeys: Int { 100_000 }

    init(_ limit: RateLimit) {
        self.limit = limit
    }

    func take(_ key: Key, now: UInt64 = MonotonicClock.now) -> Decision {
        guard !limit.isUnlimited else { return .allowed }
        return buckets.withLock { buckets in
            if buckets.count >= Self.maxKeys { forgetFull(&buckets, now: now) }
            var bucket = buckets[key].map { refilled($0, now: now) } ?? Bucket(tokens: limit.burst, updated: now)
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return .refused(retryAfter: Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            return .allowed
        }
    }

    private func refilled(_ bucket: Bucket, now: UInt64) -> Bucket {
        let seconds = Double(now &- bucket.updated) / 1e9
        return Bucket(tokens: min(limit.burst, bucket.tokens + seconds * limit.perSecond), updated: now)
    }

    private func forgetFull(_ buckets: inout [Key: Bucket], now: UInt64) {
        buckets = buckets.filter { refilled($0.value, now: now).tokens < limit.burst }
    }
}
