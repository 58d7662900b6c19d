import TailorDomain
import TailorFeed
import TailorHTTP
import TailorStore

/// Read your writes across servers. Every write's answer carries the feed
/// position this server has applied (the header `Tailor-Position` and the
/// cookie `tailor_position`, which a browser sends back without code). A
/// request that carries a position, or a stream's Last-Event-ID, is answered
/// only once this server has applied the feed that far: a write answered by
/// one server is then seen on the next request to another, and a stream that
/// moves from one server to another never goes back.
struct ReadYourWrites: Sendable {
    static let header = "Tailor-Position"
    static let cookieName = "tailor_position"
    /// A position matters only just after its write: the cookie is not kept longer.
    static let cookieSeconds = 60

    let progress: FeedProgress
    let database: Database
    /// How long to wait for the feed before answering 503.
    let maxWait: Duration

    func handle(_ request: HTTPRequest, _ handler: Router.Handler) async throws -> HTTPResponse {
        // A position past everything in the database is not one of its own (an
        // old cookie, an id from another database): it is not waited for.
        if progress.isShared, let wanted = Self.position(in: request), wanted > progress.applied,
           wanted <= (try await database.readOffLoop { try $0.lastPosition() }) {
            if await !progress.wait(for: wanted, atMost: maxWait) { throw APIError.behind }
        }
        var response = try await handler(request)
        if request.method != .get, request.method != .head, response.status.code < 400 {
            let position = progress.answered
            response.headers.append(HTTPField(Self.header, String(position)))
            response.headers.append(HTTPField("Set-Cookie",
                "\(Self.cookieName)=\(position); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(Self.cookieSeconds)" + Authenticator.secure(request)))
        }
        return response
    }

    /// The latest position the request says its client has seen.
    static func position(in request: HTTPRequest) -> Int? {
        let candidates = [request.headers[header], request.headers.cookie(cookieName),
                          request.headers["last-event-id"], request.query("lastEventId")]
        return candidates.compactMap { $0.flatMap { Int($0) } }.max()
    }
}
