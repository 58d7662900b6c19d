@testable import TailorApp
@testable import TailorDomain
@testable import TailorStreams
@testable import TailorViews
import Testing

/// The token bucket alone, on a clock the test moves.
@Suite struct RateLimiterTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aBurstThenTheRate() {
        let limiter = RateLimiter<Int>(RateLimit(perSecond: 2, burst: 3))
        for _ in 0..<3 { #expect(limiter.take(1, now: 0) == .allowed) }
        #expect(limiter.take(1, now: 0) == .refused(retryAfter: 1))
        // Half a second brings one token back at two a second.
        #expect(limiter.take(1, now: Self.second / 2) == .allowed)
        #expect(limiter.take(1, now: Self.second / 2) == .refused(retryAfter: 1))
        // A long pause refills up to the burst, not past it.
        for _ in 0..<3 { #expect(limiter.take(1, now: 100 * Self.second) == .allowed) }
        #expect(limiter.take(1, now: 100 * Self.second) != .allowed)
    }

    @Test func eachKeyHasItsOwnBucket() {
        let limiter = RateLimiter<Int>(RateLimit(perSecond: 1, burst: 1))
        #expect(limiter.take(1, now: 0) == .allowed)
        #expect(limiter.take(1, now: 0) != .allowed)
        #expect(limiter.take(2, now: 0) == .allowed)
    }

    @Test func aSlowRateSaysHowLongToWait() {
        let limiter = RateLimiter<Int>(RateLimit(perSecond: 0.1, burst: 1))
        #expect(limiter.take(1, now: 0) == .allowed)
        #expect(limiter.take(1, now: 0) == .refused(retryAfter: 10))
    }

    @Test func noLimitAllowsEverything() {
        let limiter = RateLimiter<Int>(.unlimited)
        for _ in 0..<10_000 { #expect(limiter.take(1, now: 0) == .allowed) }
    }
}
