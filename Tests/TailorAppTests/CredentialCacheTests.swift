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

    /// A token's hash, told apart by `number`.
    private func token(_ number: Int) -> SHA256.Digest {
        Authenticator.hash("token \(number)")
    }

    @Test func aTokenForgottenAfterItWasCheckedIsNotRemembered() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        cache.forget(token(1))
        cache.remember(Credential(user: alice, session: 7, hash: token(1), checkedAt: checkedAt))
        #expect(cache.credential(for: token(1)) == nil)
        #expect(cache.hasForgotten(token(1), since: checkedAt))
        // Checked again after the end, a token that is somehow valid is kept.
        cache.remember(Credential(user: alice, session: 8, hash: token(1), checkedAt: cache.now))
        #expect(cache.credential(for: token(1))?.session == 8)
    }

    @Test func otherTokensAreNotTouchedByAnEnd() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        cache.forget(token(2))
        cache.remember(Credential(user: alice, session: 7, hash: token(1), checkedAt: checkedAt))
        #expect(cache.credential(for: token(1)) != nil)
        #expect(!cache.hasForgotten(token(1), since: checkedAt))
        #expect(cache.hasForgotten(token(2), since: checkedAt))
        #expect(!cache.hasForgotten(token(2), since: cache.now))
    }

    @Test func pastItsMemoryOfEndsWhatWasCheckedBeforeCountsAsEnded() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        for index in 0...CredentialCache.forgottenCapacity { cache.forget(token(1_000 + index)) }
        #expect(cache.hasForgotten(token(999), since: checkedAt), "no longer told apart: counted as ended")
        #expect(!cache.hasForgotten(token(999), since: cache.now))
    }
}
