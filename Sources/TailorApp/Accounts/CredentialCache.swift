import Synchronization
import TailorStore

/// Who a request is, once its token is known to be valid.
struct Credential: Sendable {
    let user: User
    /// The session, when the token is a browser session's rather than the account's.
    let session: Int?
    let hash: [UInt8]
}

/// Valid tokens remembered by their hashes, so that an authenticated cached
/// GET touches no database. A session that ends is forgotten as the change
/// feed brings its end, on every server, so that signing out on one ends the
/// session on all of them.
final class CredentialCache: Sendable {
    private let known = Mutex<[[UInt8]: Credential]>([:])
    /// Remembered tokens at most; past it the memory starts over.
    static let capacity = 100_000

    func credential(for hash: [UInt8]) -> Credential? {
        known.withLock { $0[hash] }
    }

    func remember(_ credential: Credential) {
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll() }
            known[credential.hash] = credential
        }
    }

    func forget(_ hash: [UInt8]) {
        _ = known.withLock { $0.removeValue(forKey: hash) }
    }
}
