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

    /// Alice's credential of token `number`, checked at `moment`.
    private func credential(_ number: Int, session: Int = 7, of user: User? = nil, checkedAt moment: CredentialCache.Moment) -> Credential {
        Credential(user: user ?? alice, session: session, hash: token(number), checkedAt: moment)
    }

    @Test func aTokenForgottenAfterItWasCheckedIsNotRemembered() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        cache.forget(token(1))
        cache.remember(credential(1, checkedAt: checkedAt))
        #expect(cache.credential(for: token(1)) == nil)
        #expect(cache.hasForgotten(credential(1, checkedAt: checkedAt)))
        // Checked again after the end, a token that is somehow valid is kept.
        cache.remember(credential(1, session: 8, checkedAt: cache.now))
        #expect(cache.credential(for: token(1))?.session == 8)
    }

    @Test func otherTokensAreNotTouchedByAnEnd() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        cache.forget(token(2))
        cache.remember(credential(1, checkedAt: checkedAt))
        #expect(cache.credential(for: token(1)) != nil)
        #expect(!cache.hasForgotten(credential(1, checkedAt: checkedAt)))
        #expect(cache.hasForgotten(credential(2, checkedAt: checkedAt)))
        #expect(!cache.hasForgotten(credential(2, checkedAt: cache.now)))
    }

    /// A disabled account: every token of it checked before the disable is
    /// refused, remembered or not (one being read from the store then, or
    /// one just given out by a sign-in that raced it), and no other account's.
    @Test func anAccountForgottenAfterItsTokenWasCheckedIsNotRemembered() {
        let cache = CredentialCache()
        let bob = User(id: 2, name: "bob")
        cache.remember(credential(1, checkedAt: cache.now))
        cache.remember(credential(3, of: bob, checkedAt: cache.now))
        let checkedAt = cache.now
        cache.forget(user: alice.id)
        #expect(cache.credential(for: token(1)) == nil)
        cache.remember(credential(2, checkedAt: checkedAt))
        #expect(cache.credential(for: token(2)) == nil, "a token checked before the disable was learnt after it")
        #expect(cache.hasForgotten(credential(2, checkedAt: checkedAt)))
        #expect(cache.credential(for: token(3)) != nil)
        #expect(!cache.hasForgotten(credential(3, of: bob, checkedAt: checkedAt)))
        // Enabled again and signed in anew, the account's new token is kept.
        cache.remember(credential(4, checkedAt: cache.now))
        #expect(cache.credential(for: token(4)) != nil)
    }

    @Test func pastItsMemoryOfEndsWhatWasCheckedBeforeCountsAsEnded() {
        let cache = CredentialCache()
        let checkedAt = cache.now
        for index in 0...CredentialCache.forgottenCapacity { cache.forget(token(1_000 + index)) }
        #expect(cache.hasForgotten(credential(999, checkedAt: checkedAt)), "no longer told apart: counted as ended")
        #expect(!cache.hasForgotten(credential(999, checkedAt: cache.now)))
    }
}
