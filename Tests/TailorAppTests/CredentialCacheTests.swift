@testable import TailorApp
@testable import TailorDomain
import TailorStore
@testable import TailorStreams
@testable import TailorViews
import Testing

/// The memory of valid tokens alone: what was forgotten after a token was
/// checked is never learnt again, and is seen by whoever asks.
@Suite struct CredentialCacheTests {
    private let alice = User(id: 1, name: "alice")

    @Test func aTokenForgottenAfterItWasCheckedIsNotRemembered() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        cache.forget([1])
        cache.remember(Credential(user: alice, session: 7, hash: [1], checkedAt: checkedAt))
        #expect(cache.credential(for: [1]) == nil)
        #expect(cache.hasForgotten([1], since: checkedAt))
        // Checked again after the end, a token that is somehow valid is kept.
        cache.remember(Credential(user: alice, session: 8, hash: [1], checkedAt: cache.now))
        #expect(cache.credential(for: [1])?.session == 8)
    }

    @Test func otherTokensAreNotTouchedByAnEnd() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        cache.forget([2])
        cache.remember(Credential(user: alice, session: 7, hash: [1], checkedAt: checkedAt))
        #expect(cache.credential(for: [1]) != nil)
        #expect(!cache.hasForgotten([1], since: checkedAt))
        #expect(cache.hasForgotten([2], since: checkedAt))
        #expect(!cache.hasForgotten([2], since: cache.now))
    }

    @Test func pastItsMemoryOfEndsWhatWasCheckedBeforeCountsAsEnded() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        for index in 0...CredentialCache.forgottenCapacity { cache.forget([UInt8(index % 256), UInt8(index / 256)]) }
        #expect(cache.hasForgotten([255, 255], since: checkedAt), "no longer told apart: counted as ended")
        #expect(!cache.hasForgotten([255, 255], since: cache.now))
    }
}
