import TailorDomain
import TailorHTTP
import TailorStore
import TailorStreams
import TailorViews
import TailorWire

/// `GET /api/events?topics=chats,badge,chat:ID,orders,order:ID[&patch=json]`: one
/// stream per client, multiplexing its topics (browsers allow six connections
/// per origin); with `patch=json`, a topic's changes after its first view model
/// come as JSON Patches where they are smaller.
struct EventStreamRoutes {
    let context: AppContext
    let streams: EventStreams

    /// Topics one stream may follow at most.
    static let maxTopics = 32

    func register(on router: inout Router) {
        router.get("/api/events") { request in
            let credential = try await context.auth.credential(for: request)
            let user = credential.user
            let topics = try await topics(request, user: user)
            // A session's stream ends with the session; the account token's has none.
            let session = credential.session == nil ? nil : credential.hash.bytes
            let lastEventID = Self.lastEventID(of: request)
            let takesPatches = try Self.takesPatches(request)
            var response = HTTPResponse(status: .ok, headers: [
                HTTPField("Content-Type", "text/event-stream; charset=utf-8"),
                HTTPField("X-Accel-Buffering", "no"),
            ])
            response.kind = .unstored
            let streams = streams
            let auth = context.auth
            response.stream = { stream in
                await streams.serve(user: user.id, session: session, topics: topics, takesPatches: takesPatches, lastEventID: lastEventID,
                                    on: stream)
                // A session that ended (or an account disabled) while the topics
                // were checked swept the streams before this one was among
                // them: it is ended here.
                if auth.hasEnded(credential) {
                    if let session { streams.endStreams(ofSession: session) } else { streams.endStreams(ofUser: user.id) }
                }
            }
            return response
        }
    }

    /// Where the client's last stream stopped: the `Last-Event-ID` header that an
    /// `EventSource` sends when it reconnects by itself, or the `lastEventId`
    /// query parameter, because a page that opens a new `EventSource` for new
    /// topics cannot set that header.
    static func lastEventID(of request: HTTPRequest) -> Int64? {
        (request.headers["last-event-id"] ?? request.query("lastEventId")).flatMap { Int64($0.trimmed) }
    }

    /// Whether the stream asked for patches: `patch=json`, the one format there is.
    static func takesPatches(_ request: HTTPRequest) throws -> Bool {
        switch request.query("patch") {
        case nil: false
        case "json": true
        case let other?: throw APIError.invalidQuery("patch takes the value json, not \(other.prefix(32)).")
        }
    }

    /// The requested topics, each checked: none is 400, an unknown name or another
    /// user's chat or order is 404, all before a byte of the stream.
    private func topics(_ request: HTTPRequest, user: User) async throws -> [Topic] {
        let names = (request.query("topics") ?? "").split(separator: ",").map { $0.trimmed }.filter { !$0.isEmpty }
        guard !names.isEmpty else {
            throw HTTPError(.badRequest, code: "no_topics", message: "Name the topics to follow: ?topics=chats,badge,chat:ID,orders,order:ID")
        }
        guard names.count <= Self.maxTopics else { throw APIError.invalidQuery("At most \(Self.maxTopics) topics per stream.") }
        var topics: [Topic] = []
        for name in names {
            guard let named = StreamTopic(name: name) else { throw unknown(name) }
            let topic: Topic
            switch named.kind {
            case .chats: topic = .chats(page: .first)
            case .badge: topic = .badge
            case .orders: topic = .orders(.standard)
            case .chat:
                guard let id = Self.id(of: named),
                      try await context.views.database.readOffLoop({ try $0.chat(id: id)?.includes(user.id) }) == true else { throw unknown(name) }
                topic = .chat(id: id, page: .latest)
            case .order:
                guard let id = Self.id(of: named),
                      try await context.views.database.readOffLoop({ try $0.order(id: id, user: user.id) != nil }) else { throw unknown(name) }
                topic = .order(id: id)
            }
            if !topics.contains(topic) { topics.append(topic) }
        }
        return topics
    }

    /// A chat's or an order's id as a topic names it: a positive number.
    private static func id(of topic: StreamTopic) -> Int? {
        guard let id = topic.id.flatMap({ Int($0) }), id > 0 else { return nil }
        return id
    }

    private func unknown(_ name: String) -> HTTPError {
        HTTPError(.notFound, code: "unknown_topic", message: "There is no topic \(name) for you.")
    }
}
