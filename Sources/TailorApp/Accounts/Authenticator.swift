import Synchronization
import TailorHTTP
import TailorLoop
import TailorStore

/// Who a request is: a bearer token or the session cookie, matched by its
/// SHA-256 hash (tokens are never stored). Known hashes are remembered in memory,
/// so an authenticated cached GET touches no database.
final class Authenticator: Sendable {
    static let cookieName = "tailor_session"

    private let database: Database
    private let known = Mutex<[[UInt8]: User]>([:])
    /// Each user's writes (any method but GET and HEAD).
    private let writes: RateLimiter<Int>
    /// Sign-ups and sign-ins per client address: tokens cannot be guessed, but
    /// accounts can be made by the thousand to fill other users' lists.
    private let accounts: RateLimiter<PeerAddress>
    /// Remembered tokens at most; past it the memory starts over.
    static let maxRemembered = 100_000

    init(database: Database, writeLimit: RateLimit, accountLimit: RateLimit) {
        self.database = database
        writes = RateLimiter(writeLimit)
        accounts = RateLimiter(accountLimit)
    }

    /// A new token: 256 random bits as 64 hex digits.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    static func hash(_ token: String) -> [UInt8] {
        SHA256.hash(Array(token.utf8))
    }

    /// The request's user, or a 401; a write past the user's rate is a 429.
    func user(for request: HTTPRequest) throws -> User {
        let user = try identify(request)
        if request.method != .get && request.method != .head, case .refused(let retryAfter) = writes.take(user.id) {
            throw APIError.rateLimited("changes", retryAfter: retryAfter)
        }
        return user
    }

    /// Counts a sign-up or sign-in from the request's address: a 429 past the limit.
    func admitAccountRequest(_ request: HTTPRequest) throws {
        guard let peer = request.peer, case .refused(let retryAfter) = accounts.take(peer) else { return }
        throw APIError.rateLimited("sign-ups and sign-ins from this address", retryAfter: retryAfter)
    }

    /// Who sends the request, or a 401.
    private func identify(_ request: HTTPRequest) throws -> User {
        guard let token = Self.token(in: request) else {
            throw APIError.unauthorized("Sign up, or send a token as Authorization: Bearer TOKEN.")
        }
        guard let user = try user(token: token) else { throw APIError.unauthorized("The token is not valid.") }
        return user
    }

    /// The routes under `/api` that need no account: sign-up and sign-in.
    static let openRoutes: Set<String> = ["/api/users", "/api/session"]

    /// Why a request held before its body would be refused for its credentials,
    /// or nil when they are good or the route needs none. A store that fails
    /// here is left to the handler, which meets it again and reports it.
    func refusal(for request: HTTPRequest) -> HTTPError? {
        guard request.path.hasPrefix("/api/"), !(Self.openRoutes.contains(request.path) && request.method == .post) else { return nil }
        do {
            _ = try identify(request)
            return nil
        } catch let refusal as HTTPError {
            return refusal
        } catch {
            return nil
        }
    }

    func user(token: String) throws -> User? {
        let hash = Self.hash(token)
        if let user = known.withLock({ $0[hash] }) { return user }
        guard let user = try database.read({ try $0.user(tokenHash: hash) }) else { return nil }
        remember(hash: hash, user: user)
        return user
    }

    func remember(hash: [UInt8], user: User) {
        known.withLock { known in
            if known.count >= Self.maxRemembered { known.removeAll() }
            known[hash] = user
        }
    }

    /// The bearer token, else the session cookie's value.
    static func token(in request: HTTPRequest) -> String? {
        if let authorization = request.headers["authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return String(parts[1]).trimmed
            }
            return nil
        }
        for header in request.headers.values("cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if trimmed.hasPrefix(cookieName + "=") { return String(trimmed.dropFirst(cookieName.count + 1)) }
            }
        }
        return nil
    }

    static func sessionCookie(_ token: String) -> HTTPField {
        HTTPField("Set-Cookie", "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000")
    }

    static let clearedCookie = HTTPField("Set-Cookie", "\(cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
}
