import TailorHTTP
import TailorStore

/// Sign-up, sign-in with a token, sign-out, and `GET /api/me`.
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

    func register(on router: inout Router) {
        router.post("/api/users") { request in try await signUp(request) }
        router.get("/api/me") { request in
            let user = try context.auth.user(for: request)
            return ViewModelEncoding.response(Me(user: UserViewModel(id: String(user.id), name: user.name)))
        }
        router.post("/api/session") { request in try signIn(request) }
        router.delete("/api/session") { request in
            _ = try context.auth.user(for: request)
            return HTTPResponse(status: .noContent, headers: [Authenticator.clearedCookie])
        }
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
        let name = try JSONBody(request).string("name")!
        guard Self.isValidName(name) else {
            throw APIError.invalid("\"name\" must be 1 to 32 letters, digits, _ or - (ASCII).")
        }
        let taken = APIError.conflict("name_taken", "The name \(name) is taken.")
        guard name.lowercased() != User.botName else { throw taken }
        let token = Authenticator.newToken()
        let hash = Authenticator.hash(token)
        let outcome: EventOutcome
        do {
            outcome = try await context.events.route(.account(.signUp(name: name, tokenHash: hash)))
        } catch StoreError.nameTaken {
            throw taken
        }
        guard case .signedUp(let user) = outcome else { throw HTTPError.internalError }
        context.auth.remember(hash: hash, user: user)
        return ViewModelEncoding.response(SignedUp(user: UserViewModel(id: String(user.id), name: user.name), token: token),
                                          status: .created, headers: [Authenticator.sessionCookie(token)])
    }

    private func signIn(_ request: HTTPRequest) throws -> HTTPResponse {
        try context.auth.admitAccountRequest(request)
        let token = try JSONBody(request).string("token")!
        guard let user = try context.auth.user(token: token) else { throw APIError.unauthorized("The token is not valid.") }
        return ViewModelEncoding.response(Me(user: UserViewModel(id: String(user.id), name: user.name)),
                                          headers: [Authenticator.sessionCookie(token)])
    }
}
