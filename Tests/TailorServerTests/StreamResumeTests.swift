import Foundation
import Testing
import TailorTestSupport

/// What a client that keeps view models between visits relies on: a stream
/// resumed from a position the server no longer remembers (one from before it
/// started) sends every topic whole, changed or not, so the client's stored
/// copies are all replaced by current ones.
@Suite struct StreamResumeTests {
    @Test(arguments: Backend.allCases)
    func aResumeFromBeforeTheServerStartedSendsEveryTopicWhole(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        var kept: (token: String?, lastSeen: String) = (nil, "")
        do {
            let app = try TestApp(backend: backend) { $0.database = location }
            let (alice, bob, chatID) = try app.aliceAndBobInAChat()
            let stream = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,orders", patches: true)
            _ = try stream.next(where: { $0.name == "orders" })
            try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"before the restart"}"#)
            kept = (bob.token, try stream.next(where: { $0.name == "badge" || $0.name == "badge.patch" }).id!)
        }
        let app = try TestApp(backend: backend) { $0.database = location }
        let resumed = try SSEClient(port: app.port, token: kept.token, topics: "chats,badge,orders", patches: true,
                                    lastEventID: kept.lastSeen)
        let first = try (0..<3).map { _ in try resumed.next() }
        // Whole view models, not patches: the client holds no base on this stream.
        #expect(Set(first.map(\.name)) == ["chats", "badge", "orders"])
        #expect(first.allSatisfy { Int64($0.id!)! >= Int64(kept.lastSeen)! })
    }
}
