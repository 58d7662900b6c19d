import Synchronization
import TailorStore
import TailorStreams

/// Who a request is, once its token is known to be valid.
struct Credential: Sendable {
    let user: User
    /// The session, when the token is a browser session's rather than the account's.
    let session: Int?
    let hash: SHA256.Digest
    /// When the token was last known valid: a session that ends after it is
    /// seen by `CredentialCache.hasForgotten(_:since:)`.
    var checkedAt: CredentialCache.Moment
}

/// Valid tokens remembered by their hashes, so that an authenticated cached
/// GET touches no database. A session that ends is forgotten as the change
/// feed brings its end, on every server, so that signing out on one ends the
/// session on all of them.
///
/// A token read from the store just before its session ended must not be
/// learnt again after the end was forgotten, and a stream subscribed after
/// the end must still be ended: both ask whether the token was forgotten
/// since they last knew it valid, at a `Moment` of the cache's own clock.
/// The same holds for a whole account, which a disable forgets: a token of it
/// checked before is not learnt after, though the cache never held it.
final class CredentialCache: Sendable {
    /// A point in the cache's history of forgetting.
    struct Moment: Sendable, Comparable {
        fileprivate let tick: UInt64

        static func < (a: Moment, b: Moment) -> Bool { a.tick < b.tick }
    }

    private struct State {
        var known: [SHA256.Digest: Credential] = [:]
        /// Counts what was forgotten.
        var tick: UInt64 = 0
        /// When each recently forgotten token was forgotten.
        var forgotten: [SHA256.Digest: UInt64] = [:]
        /// When each recently disabled account was forgotten, with every token of it.
        var forgottenUsers: [Int: UInt64] = [:]
        /// Forgetting before this tick is no longer told apart: a token known
        /// valid only before it counts as forgotten.
        var forgottenFrom: UInt64 = 0
    }

    /// Read by requests on every loop, changed by sign-ins there and by the feed's thread.
    private let state = Mutex(State())
    /// Remembered tokens at most; past it the memory starts over.
    static let capacity = 100_000
    /// Forgotten tokens told apart at most; past it the memory starts over,
    /// and whatever was known before counts as forgotten (read again).
    static let forgottenCapacity = 10_000

    /// Now, for a token about to be looked up.
    var now: Moment {
        state.withLock { Moment(tick: $0.tick) }
    }

    /// The remembered credential of `hash`, known valid now.
    func credential(for hash: SHA256.Digest) -> Credential? {
        state.withLock { state in
            guard var credential = state.known[hash] else { return nil }
            credential.checkedAt = Moment(tick: state.tick)
            return credential
        }
    }

    /// Keeps `credential` for later requests, unless its token or its account
    /// was forgotten since it was checked: then its session has ended meanwhile.
    func remember(_ credential: Credential) {
        state.withLock { state in
            guard !Self.hasForgotten(credential, in: state) else { return }
            if state.known.count >= Self.capacity { state.known.removeAll() }
            state.known[credential.hash] = credential
        }
    }

    /// The token's session has ended.
    func forget(_ hash: SHA256.Digest) {
        state.withLock { state in
            state.known.removeValue(forKey: hash)
            Self.advance(&state)
            state.forgotten[hash] = state.tick
        }
    }

    /// A tick for something forgotten; past the memory of ends, it starts over.
    private static func advance(_ state: inout State) {
        state.tick += 1
        if state.forgotten.count + state.forgottenUsers.count >= forgottenCapacity {
            state.forgotten.removeAll()
            state.forgottenUsers.removeAll()
            state.forgottenFrom = state.tick
        }
    }

    /// The users with a remembered token.
    var users: Set<Int> {
        state.withLock { Set($0.known.values.map(\.user.id)) }
    }

    /// Every token of `user`, remembered or being checked: their account was disabled.
    func forget(user: Int) {
        state.withLock { state in
            state.known = state.known.filter { $0.value.user.id != user }
            Self.advance(&state)
            state.forgottenUsers[user] = state.tick
        }
    }

    /// The token whose hash the store kept as these bytes: its session has ended.
    func forget(storedHash bytes: [UInt8]) {
        // A hash of another size was never remembered.
        guard let hash = SHA256.Digest(bytes) else { return }
        forget(hash)
    }

    /// Whether `credential`'s token or account was forgotten after it was checked.
    func hasForgotten(_ credential: Credential) -> Bool {
        state.withLock { Self.hasForgotten(credential, in: $0) }
    }

    private static func hasForgotten(_ credential: Credential, in state: State) -> Bool {
        let moment = credential.checkedAt.tick
        if moment < state.forgottenFrom { return true }
        if let tick = state.forgotten[credential.hash], tick > moment { return true }
        return state.forgottenUsers[credential.user.id].map { $0 > moment } ?? false
    }
}
