import TailorHTTP
import TailorPush
import TailorStore
import TailorViews

/// `GET /api/push/key`, and a browser's push subscription stored or removed:
/// `POST` and `DELETE /api/push/subscriptions`.
struct PushRoutes {
    let context: AppContext
    let key: VAPIDKey
    let settings: PushSettings

    private struct Key: JSONWritable {
        let key: String

        func write(to json: inout JSONWriter) {
            json.object { $0.field("key", key) }
        }
    }

    private struct Subscribed: JSONWritable {
        let endpoint: String

        func write(to json: inout JSONWriter) {
            json.object { $0.field("endpoint", endpoint) }
        }
    }

    func register(on router: inout Router) {
        router.get("/api/push/key") { request in
            _ = try await context.auth.user(for: request)
            return ViewModelEncoding.response(Key(key: key.publicKey))
        }
        router.post("/api/push/subscriptions") { request in try await subscribe(request) }
        router.delete("/api/push/subscriptions") { request in
            let user = try await context.auth.user(for: request)
            let endpoint = try JSONBody(request).string("endpoint")
            do {
                try await context.events.unsubscribe(user: user.id, endpoint: endpoint)
            } catch StoreError.notFound {
                throw APIError.notFound("subscription")
            }
            return HTTPResponse(status: .noContent)
        }
    }

    /// The body is the browser's `PushSubscription` as JSON: `{"endpoint",
    /// "keys": {"p256dh", "auth"}}` (its `expirationTime` is not used).
    private func subscribe(_ request: HTTPRequest) async throws -> HTTPResponse {
        let credential = try await context.auth.credential(for: request)
        let body = try JSONBody(request)
        let endpoint: PushEndpoint
        do {
            endpoint = try PushEndpoint(try body.string("endpoint"), allowedHosts: settings.hosts)
        } catch let refusal as PushEndpoint.Refusal {
            throw APIError.invalid("\"endpoint\": \(refusal).")
        }
        guard case .object(let keys)? = body.fields["keys"] else { throw APIError.invalid("\"keys\" must be an object with p256dh and auth.") }
        let fields = JSONBody(fields: keys)
        guard let p256dh = Base64URL.decode(try fields.string("p256dh")), let auth = Base64URL.decode(try fields.string("auth")),
              PushEncryption.areUsable(p256dh: p256dh, auth: auth) else {
            throw APIError.invalid("\"keys\" must hold p256dh, a P-256 public key, and auth, 16 bytes, both Base64URL.")
        }
        do {
            try await context.events.subscribe(user: credential.user.id, session: credential.session, endpoint: endpoint.url,
                                               p256dh: p256dh, auth: auth, limit: settings.subscriptionsPerUser)
        } catch StoreError.tooManySubscriptions {
            throw APIError.conflict("too_many_subscriptions", "An account has at most \(settings.subscriptionsPerUser) push subscriptions.")
        } catch StoreError.accountDisabled {
            throw Authenticator.invalidToken
        }
        return ViewModelEncoding.response(Subscribed(endpoint: endpoint.url), status: .created)
    }
}
