import Foundation
import TailorTestSupport
import Testing

/// At midnight every followed view model is built again, for its date texts;
/// a stream gets only those whose bytes changed. (A stream that takes
/// patches never got a version it had: its patch base says so.)
@Suite struct MidnightRebuildTests {
    @Test func aViewModelBuiltAgainToTheSameBytesIsNotSent() throws {
        let app = try TestApp()
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"before"}"#).status == 201)
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,chat:\(chatID)")
        for _ in 0..<3 { _ = try stream.next() }
        // Today's texts read the same after the rebuild: nothing to send.
        // Its pass is over once it has counted its three view models: a
        // message sent before that could be in them, and be sent twice.
        let published = MetricsTests.Sample(name: "tailor_stream_events_published_total", labels: [:])
        let before = try MetricsTests.scrape(app)[published] ?? 0
        app.application.rebuildAsAtMidnight()
        let rebuilt = try MetricsTests.scrape(app) { ($0[published] ?? 0) >= before + 3 }
        #expect((rebuilt[published] ?? 0) >= before + 3)
        #expect(try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"after"}"#).status == 201)
        // Every event up to the message's badge: none of the rebuild's came before it.
        var events: [String] = []
        while true {
            let event = try stream.next()
            events.append("\(event.name) \(event.json["unread"] ?? "")")
            if event.name == "badge", event.json["unread"] as? Int == 2 { break }
        }
        #expect(!events.contains("badge 1"), "\(events)")
        #expect(events.filter { $0.hasPrefix("chats") }.count <= 1, "\(events)")
    }
}
