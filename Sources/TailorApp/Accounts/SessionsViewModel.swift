import TailorStore

/// A user's signed-in browsers (`GET /api/sessions`), newest first.
struct SessionsViewModel: JSONWritable, Sendable {
    struct Item: JSONWritable, Sendable {
        let id: String
        let createdAt: String
        let lastSeenAt: String
        let userAgent: String
        /// The session the request came with.
        let current: Bool

        func write(to json: inout JSONWriter) {
            json.object {
                $0.field("createdAt", createdAt)
                $0.field("current", current)
                $0.field("id", id)
                $0.field("lastSeenAt", lastSeenAt)
                $0.field("userAgent", userAgent)
            }
        }
    }

    let items: [Item]

    init(_ sessions: [Session], current: Int?) {
        items = sessions.map { session in
            Item(id: String(session.id), createdAt: DateText.iso(session.createdAt), lastSeenAt: DateText.iso(session.lastSeenAt),
                 userAgent: session.userAgent, current: session.id == current)
        }
    }

    func write(to json: inout JSONWriter) {
        json.object { $0.field("items", items) }
    }
}
