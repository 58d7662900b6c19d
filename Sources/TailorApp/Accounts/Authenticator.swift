import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorStore
import TailorViews

/// Who a request is: a bearer token or the session cookie, matched by its
/// SHA-256 hash (tokens are never stored). A token is the account's own (from
/// sign-up, for scripts) or a browser session's (from the cookie), which
/// signing out ends. Known hashes are remembered (`CredentialCache`).
final class Authenticator: Sendable {
    static let cookieName = "tailor_session"
    /// The cookie's name over HTTPS: a browser takes a `__Host-` cookie only
    /// from this host itself, secure, for every path (RFC 6265bis §4.1.3.2),
    /// so a site on a sibling domain cannot plant one.
    static let secureCookieName = "__Host-tailor_session"

    private let database: Database
    private let events: EventRouter
    private let now: @Sendable () -> Int
    private let credentials: CredentialCache
    /// Told of each request's user: a server keeps what its users read (`ServedUsers`).
    private let served: ServedUsers?
    /// When each session's use was last recorded, in milliseconds: a
    /// session's requests come on any loop.
    private let seen = Mutex<[Int: Int]>([:])
    /// Each user's writes (any method but GET and HEAD).
    private let writes: RateLimiter<Int>
    /// Sign-ups and sign-ins per client address: tokens cannot be guessed, but
    /// accounts can be made by the thousand to fill other users' lists.
    private let accounts: RateLimiter<PeerAddress>
    let passwords: PasswordGate
    private let failures: ThrottledLog
    private let refusals: ThrottledLog
    /// Sessions whose last use is remembered at most; past it the memory starts over.
    static let maxRemembered = 100_000
    /// Milliseconds a session may go unused before it ends.
    private let sessionIdleTime: Int
    /// How often a session's last use is written: every five minutes, or more
    /// often when sessions end sooner than in an hour or so.
    private var seenInterval: Int { min(5 * 60 * 1000, sessionIdleTime / 4) }

    init(database: Database, events: EventRouter, credentials: CredentialCache, now: @escaping @Sendable () -> Int,
         writeLimit: RateLimit, accountLimit: RateLimit, passwords: PasswordGate, sessionIdleTime: Int, served: ServedUsers? = nil,
         logger: Logger) {
        self.served = served
        self.sessionIdleTime = sessionIdleTime
        self.database = database
        self.credentials = credentials
        self.events = events
        self.now = now
        writes = RateLimiter(writeLimit)
        accounts = RateLimiter(accountLimit)
        self.passwords = passwords
        failures = ThrottledLog(logger: logger)
        refusals = ThrottledLog(logger: logger, level: .notice)
    }

    /// A new token: 256 random bits as 64 hex digits.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    static func hash(_ token: some StringProtocol) -> SHA256.Digest {
        token.utf8.withContiguousStorageIfAvailable { SHA256.hash(UnsafeRawBufferPointer($0)) } ?? SHA256.hash(Array(token.utf8))
    }

    /// The request's user, or a 401; a write past the user's rate is a 429.
    func user(for request: HTTPRequest) async throws -> User {
        try await credential(for: request).user
    }

    /// The request's credential, or a 401; a write past the user's rate is a 429.
    func credential(for request: HTTPRequest) async throws -> Credential {
        let credential = try await identify(request)
        request.notes?.userID = credential.user.id
        served?.requested(credential.user.id)
        if request.method != .get && request.method != .head, case .refused(let retryAfter) = writes.take(credential.user.id) {
            throw APIError.rateLimited("changes", retryAfter: retryAfter)
        }
        if let session = credential.session {
            switch use(session) {
            case .expired:
                await expire(credential, session: session)
                throw Self.sessionExpired
            case .used:
                break
            case .dueToRecord:
                record(session)
            }
        }
        return credential
    }

    static let sessionExpired = APIError.unauthorized("The session was not used for too long and has ended; sign in again.")

    /// What a request's use of a session comes to.
    private enum SessionUse {
        /// Unused past `sessionIdleTime`: it ends.
        case expired
        case used
        /// Used, and its last recorded use is `seenInterval` old: record this one.
        case dueToRecord
    }

    /// A request uses `session`: one look at its last recorded use. One whose
    /// last use is not remembered (the memory started over) counts from now.
    private func use(_ session: Int) -> SessionUse {
        let time = now()
        return seen.withLock { seen in
            if seen.count >= Self.maxRemembered { seen.removeAll() }
            guard let last = seen[session] else {
                seen[session] = time
                return .used
            }
            if time - last > sessionIdleTime { return .expired }
            guard time - last >= seenInterval else { return .used }
            seen[session] = time
            return .dueToRecord
        }
    }

    /// Ends an idle session as signing out would: on every server, streams
    /// included. The request that found it idle waits for that, then hears 401.
    private func expire(_ credential: Credential, session: Int) async {
        credentials.forget(credential.hash)
        do {
            _ = try await events.endSession(user: credential.user.id, session: session)
        } catch StoreError.notFound {
            // Ended meanwhile, by another request or server.
        } catch {
            failures.log("the idle session \(session) was not ended: \(error)")
        }
    }

    /// Counts a sign-up or sign-in from the request's address: a 429 past the limit.
    func admitAccountRequest(_ request: HTTPRequest) throws {
        guard let client = request.client, case .refused(let retryAfter) = accounts.take(client.network) else { return }
        throw APIError.rateLimited("sign-ups and sign-ins from this address", retryAfter: retryAfter)
    }

    /// The user whose name and password these are. A wrong password, a name
    /// without one and a name nobody has get the same 401 after the same work
    /// (a hash is made either way); past the tries allowed for the name, 429.
    /// A name that no account can have and a password longer than any
    /// account's are refused before anything is counted or hashed.
    func user(named name: String, password: String, for request: HTTPRequest) async throws -> User {
        guard AccountRoutes.isValidName(name), password.utf8.count <= PasswordHasher.limit.bytes else { throw Self.wrongPassword }
        try passwords.admitTry(of: name, for: request)
        let found = try await database.readOffLoop { try $0.userAndPasswordHash(named: name) }
        guard try await passwords.verify(password, against: found?.passwordHash, for: request), let user = found?.user else {
            refusals.log("a sign-in with a password for \(name) failed from \(request.client?.text ?? "-") (request \(request.id ?? "-"))")
            throw Self.wrongPassword
        }
        return user
    }

    static let wrongPassword = APIError.unauthorized("The name or the password is not right.")

    /// Who sends the request, or a 401.
    private func identify(_ request: HTTPRequest) async throws -> Credential {
        guard let hash = try Self.tokenHash(in: request) else { throw Self.noToken }
        guard let credential = try await credential(hash: hash) else { throw Self.invalidToken }
        return credential
    }

    static let noToken = APIError.unauthorized("Sign up, or send a token as Authorization: Bearer TOKEN.")
    static let invalidToken = APIError.unauthorized("The token is not valid.")

    /// The routes under `/api` that need no account: sign-up and sign-in.
    static let openRoutes: Set<String> = ["/api/users", "/api/session"]

    /// Why a request held before its body would be refused for its credentials,
    /// or nil when they are good or the route needs none. A store that fails
    /// here is left to the handler, which meets it again and reports it.
    func refusal(for request: HTTPRequest) async -> HTTPError? {
        guard request.path.hasPrefix("/api/"), !(Self.openRoutes.contains(request.path) && request.method == .post) else { return nil }
        let hash: SHA256.Digest
        do {
            guard let sent = try Self.tokenHash(in: request) else { return Self.noToken }
            hash = sent
        } catch {
            return error
        }
        do {
            return try await credential(hash: hash) == nil ? Self.invalidToken : nil
        } catch {
            return nil
        }
    }

    /// The credential a token is: an account's token, else a session's.
    func credential(token: some StringProtocol) async throws -> Credential? {
        try await credential(hash: Self.hash(token))
    }

    /// The credential of the token that hashes to `hash`.
    private func credential(hash: SHA256.Digest) async throws -> Credential? {
        if let credential = credentials.credential(for: hash) { return credential }
        let checkedAt = credentials.now
        guard let (found, lastSeenAt) = try await database.readOffLoop({ try Self.credential(hash, in: $0, checkedAt: checkedAt) })
        else { return nil }
        // Read before its session ended or its account was disabled, and the
        // end already followed: it is not valid any more.
        guard !credentials.hasForgotten(found) else { return nil }
        remember(found, lastSeenAt: lastSeenAt)
        return found
    }

    private static func credential(_ hash: SHA256.Digest, in store: Store, checkedAt: CredentialCache.Moment) throws -> (Credential, lastSeenAt: Int?)? {
        if let user = try store.user(tokenHash: hash.bytes) { return (Credential(user: user, session: nil, hash: hash, checkedAt: checkedAt), nil) }
        return try store.session(tokenHash: hash.bytes).map {
            (Credential(user: $0.1, session: $0.0.id, hash: hash, checkedAt: checkedAt), $0.0.lastSeenAt)
        }
    }

    /// Now, for a token about to be given out: taken before its session is
    /// written, so that a disable that follows the write is seen by `newCredential`.
    var moment: CredentialCache.Moment { credentials.now }

    /// A credential for a token just given out, whose account was known
    /// valid at `checkedAt`.
    func newCredential(user: User, session: Int?, hash: SHA256.Digest, checkedAt: CredentialCache.Moment) -> Credential {
        Credential(user: user, session: session, hash: hash, checkedAt: checkedAt)
    }

    /// Whether `credential`'s session has ended, or its account was disabled, since it was checked.
    func hasEnded(_ credential: Credential) -> Bool {
        credentials.hasForgotten(credential)
    }

    /// Keeps a credential for later requests; a session's as used at `lastSeenAt` (now, for a new one).
    func remember(_ credential: Credential, lastSeenAt: Int? = nil) {
        credentials.remember(credential)
        guard let session = credential.session else { return }
        let time = lastSeenAt ?? now()
        seen.withLock { seen in seen[session] = max(seen[session] ?? 0, time) }
    }

    /// An ended session's token no longer authenticates.
    func forget(_ session: Session) {
        credentials.forget(storedHash: session.tokenHash)
        _ = seen.withLock { $0.removeValue(forKey: session.id) }
    }

    /// Writes that a session was used, off the request's path: the answer
    /// does not wait for the write.
    private func record(_ session: Int) {
        let events = events
        let failures = failures
        Task {
            do {
                try await events.noteSessionSeen(session)
            } catch {
                failures.log("the last use of session \(session) was not recorded: \(error)")
            }
        }
    }

    /// The hash of the bearer token, else of the session cookie's value: the `__Host-` one
    /// when it is sent, else the plain one (set over HTTP, or before the
    /// server gave `__Host-` cookies). Two different values of one cookie are
    /// refused: one of them was planted by another site.
    static func tokenHash(in request: HTTPRequest) throws(HTTPError) -> SHA256.Digest? {
        if let authorization = request.headers.valueBytes("authorization") {
            return authorization.withUnsafeBytes(bearerTokenHash)
        }
        for name in sessionCookieNames {
            let values = request.headers.cookies(name)
            guard let first = values.first else { continue }
            guard values.allSatisfy({ $0 == first }) else { throw twoSessionCookies }
            return hash(first)
        }
        return nil
    }

    /// The hash of the token of an `Authorization: Bearer TOKEN` field, the
    /// scheme in any case (RFC 9110 §11.1), read in place: no copy of the
    /// field on every request. Nil for another scheme or no token.
    private static func bearerTokenHash(in field: UnsafeRawBufferPointer) -> SHA256.Digest? {
        let scheme: StaticString = "bearer"
        let length = scheme.utf8CodeUnitCount
        guard field.count > length, field[length] == UInt8(ascii: " ") else { return nil }
        for index in 0..<length where HTTPHeaders.lowercased(field[index]) != scheme.utf8Start[index] { return nil }
        // The field's value has no white space at its end.
        var start = length + 1
        while start < field.count, HTTPHeaders.isSpace(field[start]) { start += 1 }
        return start == field.count ? nil : SHA256.hash(UnsafeRawBufferPointer(rebasing: field[start...]))
    }

    /// The session cookie's names, the `Secure` one first.
    private static let sessionCookieNames = [secureCookieName, cookieName]

    static let twoSessionCookies = APIError.unauthorized("Two different session cookies were sent; sign out and sign in again.")

    /// The session cookie for `request`'s client: over HTTPS through a trusted
    /// proxy a `Secure` `__Host-` cookie, which a browser never sends in clear
    /// and no other site can set.
    static func sessionCookie(_ token: String, for request: HTTPRequest) -> HTTPField {
        HTTPField("Set-Cookie", "\(cookieName(for: request))=\(token); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000" + secure(request))
    }

    /// Clears the session cookie: over HTTPS the plain one too, which a
    /// browser may still hold from before.
    static func clearedCookies(for request: HTTPRequest) -> [HTTPField] {
        let names = request.isSecure ? [secureCookieName, cookieName] : [cookieName]
        return names.map { HTTPField("Set-Cookie", "\($0)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0" + secure(request)) }
    }

    private static func cookieName(for request: HTTPRequest) -> String {
        request.isSecure ? secureCookieName : cookieName
    }

    /// The cookie attribute that keeps a cookie to HTTPS, when the client speaks it.
    static func secure(_ request: HTTPRequest) -> String {
        request.isSecure ? "; Secure" : ""
    }
}
