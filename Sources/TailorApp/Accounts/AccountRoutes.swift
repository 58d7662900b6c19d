import TailorHTTP
import TailorStore
import TailorViews

/// Sign-up, sign-in with a token, sign-out, `GET /api/me`, and a user's
/// browser sessions.
struct AccountRoutes {
    let context: AppContext

    private struct SignedUp: JSONWritable {
        let user: UserViewModel
        let token: String

        func write(to json: inout JSONWriter) {
            json.object {
                $0.field("token", token)
                $0.field("user", user)
            }
        }
    }

    private struct Me: JSONWritable {
        let user: UserViewModel

        func write(to json: inout JSONWriter) {
            json.object { $0.field("user", user) }
        }
    }

    /// The account's privacy setting.
    private struct Privacy: JSONWritable {
        let showPresence: Bool

        func write(to json: inout JSONWriter) {
            json.object { $0.field("showPresence", showPresence) }
        }
    }

    func register(on router: inout Router) {
        router.post("/api/users") { request in try await signUp(request) }
        router.get("/api/me") { request in
            let user = try await context.auth.user(for: request)
            return ViewModelEncoding.response(Me(user: UserViewModel(id: String(user.id), name: user.name)))
        }
        router.post("/api/session") { request in try await signIn(request) }
        router.delete("/api/session") { request in
            // A session's token ends with it; an account token sent here stays valid.
            let credential = try await context.auth.credential(for: request)
            if let session = credential.session { try await end(session, of: credential.user) }
            // The browser's HTTP cache may keep the person's earlier answers: gone with the session.
            let clearCache = HTTPField("Clear-Site-Data", "\"cache\"")
            return HTTPResponse(status: .noContent, headers: Authenticator.clearedCookies(for: request) + [clearCache])
        }
        router.get("/api/sessions") { request in
            let credential = try await context.auth.credential(for: request)
            let page = try PageParameters(request, defaultLimit: SessionsViewModel.pageSize, maxLimit: SessionsViewModel.maxPageSize)
            // One more than the page: whether a next page exists.
            let sessions = try await context.views.database.readOffLoop {
                try $0.sessions(of: credential.user.id, offset: page.offset, limit: page.limit + 1)
            }
            return ViewModelEncoding.response(SessionsViewModel(sessions, current: credential.session, page: page))
        }
        router.delete("/api/sessions/{id}") { request in
            let user = try await context.auth.user(for: request)
            try await end(try AppContext.id(request, missing: "session"), of: user)
            return HTTPResponse(status: .noContent)
        }
        router.put("/api/me/password") { request in try await changePassword(request) }
        router.get("/api/me/privacy") { request in
            let user = try await context.auth.user(for: request)
            let stored = try await context.views.database.readOffLoop { try $0.user(id: user.id) }
            return ViewModelEncoding.response(Privacy(showPresence: stored?.showsPresence ?? true))
        }
        router.put("/api/me/privacy") { request in
            // Whether contacts see the user's presence, and so whether the user sees theirs.
            let user = try await context.auth.user(for: request)
            let shows = try JSONBody(request).bool("showPresence")
            try await context.events.setPrivacy(of: user.id, showsPresence: shows)
            return ViewModelEncoding.response(Privacy(showPresence: shows))
        }
    }

    /// Sets the user's password: `{"password", "current"}`, the current one
    /// needed when there is one. Every other session of the account ends; the
    /// one that asked goes on, and so does the account token.
    private func changePassword(_ request: HTTPRequest) async throws -> HTTPResponse {
        let credential = try await context.auth.credential(for: request)
        let body = try JSONBody(request)
        let password = try body.text("password", within: PasswordHasher.limit, trimming: false)
        let current = try body.optionalString("current")
        let stored = try await context.views.database.readOffLoop { try $0.passwordHash(of: credential.user.id) }
        if stored != nil {
            guard let current else { throw Self.wrongCurrentPassword }
            try context.auth.passwords.admitTry(of: credential.user.name, for: request)
            guard try await context.auth.passwords.verify(current, against: stored, for: request) else { throw Self.wrongCurrentPassword }
        }
        let hash = try await context.auth.passwords.hash(password, for: request)
        _ = try await context.events.changePassword(user: credential.user.id, passwordHash: hash, keeping: credential.session)
        return HTTPResponse(status: .noContent)
    }

    static let wrongCurrentPassword = APIError.invalid("\"current\" must be the password the account has now.")

    private func end(_ session: Int, of user: User) async throws {
        let ended: Session
        do {
            ended = try await context.events.endSession(user: user.id, session: session)
        } catch StoreError.notFound {
            throw APIError.notFound("session")
        }
        context.auth.forget(ended)
    }

    /// A session for the browser that sent `request`, with a token of its own.
    private static func newSession(for request: HTTPRequest) -> (token: String, hash: SHA256.Digest, NewSession) {
        let token = Authenticator.newToken()
        let hash = Authenticator.hash(token)
        return (token, hash, NewSession(tokenHash: hash.bytes, userAgent: request.headers["user-agent"] ?? ""))
    }

    /// Names: 1–32 ASCII letters, digits, `_` or `-`.
    static func isValidName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    private func signUp(_ request: HTTPRequest) async throws -> HTTPResponse {
        try context.auth.admitAccountRequest(request)
        let body = try JSONBody(request)
        let name = try body.string("name")
        let password = try body.optionalText("password", within: PasswordHasher.limit, trimming: false)
        guard Self.isValidName(name) else {
            throw APIError.invalid("\"name\" must be 1 to 32 letters, digits, _ or - (ASCII).")
        }
        let taken = APIError.conflict("name_taken", "The name \(name) is taken.")
        guard name.lowercased() != User.botName else { throw taken }
        let token = Authenticator.newToken()
        let hash = Authenticator.hash(token)
        let (sessionToken, sessionHash, session) = Self.newSession(for: request)
        let checkedAt = context.auth.moment
        let (user, started): (User, Session)
        do {
            let passwordHash: String? = if let password { try await context.auth.passwords.hash(password, for: request) } else { nil }
            (user, started) = try await context.events.signUp(name: name, tokenHash: hash.bytes, session: session, passwordHash: passwordHash)
        } catch StoreError.nameTaken {
            throw taken
        }
        context.auth.remember(context.auth.newCredential(user: user, session: nil, hash: hash, checkedAt: checkedAt))
        context.auth.remember(context.auth.newCredential(user: user, session: started.id, hash: sessionHash, checkedAt: checkedAt))
        var response = ViewModelEncoding.response(SignedUp(user: UserViewModel(id: String(user.id), name: user.name), token: token),
                                                  status: .created, headers: [Authenticator.sessionCookie(sessionToken, for: request)])
        // The account's token: no cache, not even the browser's, keeps it.
        response.kind = .unstored
        return response
    }

    /// Signs a browser in, with an account token (`{"token"}`) or a name and
    /// password (`{"name", "password"}`): it gets a session of its own. A
    /// session's token signs nothing in: the new session would outlive it.
    private func signIn(_ request: HTTPRequest) async throws -> HTTPResponse {
        try context.auth.admitAccountRequest(request)
        let body = try JSONBody(request)
        let user: User
        // When the account was last known valid: a disable after it keeps the new session's token from being remembered.
        var checkedAt = context.auth.moment
        if let token = try body.optionalString("token") {
            guard let known = try await context.auth.credential(token: token), known.session == nil else { throw Authenticator.invalidToken }
            user = known.user
            checkedAt = known.checkedAt
        } else {
            guard let name = try body.optionalString("name"), let password = try body.optionalString("password") else {
                throw APIError.invalid("Send \"token\", or \"name\" and \"password\".")
            }
            user = try await context.auth.user(named: name, password: password, for: request)
        }
        let (sessionToken, sessionHash, session) = Self.newSession(for: request)
        let started: Session
        do {
            started = try await context.events.startSession(user: user.id, session)
        } catch StoreError.accountDisabled {
            throw Authenticator.invalidToken
        }
        context.auth.remember(context.auth.newCredential(user: user, session: started.id, hash: sessionHash, checkedAt: checkedAt))
        return ViewModelEncoding.response(Me(user: UserViewModel(id: String(user.id), name: user.name)),
                                          headers: [Authenticator.sessionCookie(sessionToken, for: request)])
    }
}
