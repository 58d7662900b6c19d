import TailorHTTP
import TailorPresence
import TailorStore
import TailorViews

/// What route handlers share: the event path, the view models, and who is asking.
struct AppContext: Sendable {
    let events: EventRouter
    let views: ViewModelBuilder
    let auth: Authenticator
    let presence: PresenceDriver

    /// The cached view model of `topic` for `user`, answered as `request` asks
    /// (gzip, 304), or 404 when it is not theirs.
    func respond(_ request: HTTPRequest, user: User, topic: Topic, missing: String, status: HTTPStatus = .ok) async throws -> HTTPResponse {
        guard let representation = try await views.representation(for: ViewKey(user: user.id, topic: topic)) else {
            throw APIError.notFound(missing)
        }
        if representation.compressesFirst(for: request) {
            // Off the loop: a chat screen's first gzip is a tenth of a millisecond of CPU.
            _ = try await views.compression.run { representation.gzip }
        }
        return representation.response(to: request, status: status)
    }

    /// A path parameter that must be an id: anything else names nothing (404).
    static func id(_ request: HTTPRequest, _ name: String = "id", missing: String) throws -> Int {
        guard let text = request.parameter(name), let id = Int(text), id > 0 else { throw APIError.notFound(missing) }
        return id
    }
}
