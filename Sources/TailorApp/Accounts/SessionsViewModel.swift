import TailorStore
import TailorViews

/// A page of a user's signed-in browsers (`GET /api/sessions`), newest first,
/// with `next`: the following page, or null.
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
    let next: ActionViewModel?

    /// Sessions on a page unless `?limit=` asks otherwise: an account's whole
    /// list under the default quota.
    static let pageSize = 100
    static let maxPageSize = 200

    /// `sessions`: the page's, and one more when a next page exists.
    init(_ sessions: [Session], current: Int?, page: PageParameters) {
        items = sessions.prefix(page.limit).map { session in
            Item(id: String(session.id), createdAt: DateText.iso(session.createdAt), lastSeenAt: DateText.iso(session.lastSeenAt),
                 userAgent: session.userAgent, current: session.id == current)
        }
        let end = page.offset + page.limit
        next = sessions.count > page.limit ? .get("/api/sessions?offset=\(end)&limit=\(page.limit)") : nil
    }

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("items", items)
            $0.field("next", next)
        }
    }
}
