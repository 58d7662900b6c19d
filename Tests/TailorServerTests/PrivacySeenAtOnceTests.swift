import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// A change of one user's presence settings is seen by the very next read of
/// their contacts' views, whether or not the server keeps those users' chats
/// in memory, and on another server of a PostgreSQL database with the
/// write's position: it is applied before the write is answered, as a
/// message is.
@Suite struct PrivacySeenAtOnceTests {
    private static func contactStatus(_ view: [String: Any]) -> Any? { view["contactStatus"] }
    private static func isHidden(_ view: [String: Any]) -> Bool { view["contactStatus"] is NSNull }

    @Test(arguments: Backend.allCases)
    func aPrivacyChangeOfAUserNotKeptIsSeenByTheNextRead(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        var (v, c, chatID): (APIClient, APIClient, String)
        do {
            // Both write, so that each sees the other's presence; then the server
            // stops, and the next one keeps no one's chats.
            let first = try TestApp(database: location)
            (v, c, chatID) = try PresenceTests.talking(first)
        }
        let writer = try TestApp(database: location)
        // On PostgreSQL the reads go to another server, with the write's position.
        let reader = backend == .postgres ? try TestApp(database: location) : writer
        let cOnWriter = try writer.client(as: c)
        let vOnReader = try reader.client(as: v)
        #expect(!Self.isHidden(try vOnReader.get("/api/chats/\(chatID)").json))
        _ = try vOnReader.get("/api/chats")

        var stale: [String] = []
        for toggle in 0..<8 {
            let shows = toggle % 2 == 1
            let answer = try cOnWriter.send("PUT", "/api/me/privacy", json: #"{"showPresence":\#(shows)}"#)
            #expect(answer.status == 200)
            let position = try #require(answer.header("tailor-position"))
            let list = try vOnReader.get("/api/chats", headers: ["Tailor-Position: \(position)"]).json
            let item = (list["items"] as? [[String: Any]])?.first ?? [:]
            let screen = try vOnReader.get("/api/chats/\(chatID)", headers: ["Tailor-Position: \(position)"]).json
            for (name, view) in [("list", item), ("screen", screen)] where Self.isHidden(view) == shows {
                stale.append("\(name) after showPresence \(shows): \(String(describing: Self.contactStatus(view)))")
            }
        }
        #expect(stale.isEmpty, "\(stale)")
    }
}
