import Foundation
import Testing
@testable import TailorClient
import TailorWire

/// The client's parts alone: the event-stream reader as a browser reads,
/// patches as RFC 6902 applies them, the backoff's range, and topics' paths.
@Suite struct ClientPartsTests {
    @Test func eventsAreReadAsABrowserReadsThemWhateverTheChunks() {
        let stream = ": ping\r\nretry: 3000\r\nid: 7\nevent: chat\ndata: {\"a\":\ndata:1}\n weird: field\n\nid: 8\rdata: x\r\r" + "event: badge\ndata\n\nid: bad\0id\ndata: y\n\n"
        let bytes = Array(stream.utf8)
        let whole: [EventStreamEvent] = {
            var parser = EventStreamParser()
            return parser.read(bytes)
        }()
        #expect(whole == [
            EventStreamEvent(name: "chat", data: Array("{\"a\":\n1}".utf8), lastEventID: "7"),
            EventStreamEvent(name: "message", data: Array("x".utf8), lastEventID: "8"),
            EventStreamEvent(name: "badge", data: [], lastEventID: "8"),
            EventStreamEvent(name: "message", data: Array("y".utf8), lastEventID: "8"),
        ])
        // One byte at a time, a CRLF split between two reads among them: the same events.
        var parser = EventStreamParser()
        #expect(bytes.flatMap { parser.read([$0]) } == whole)
    }

    @Test func patchesApplyInOrderAndOneThatDoesNotFitThrows() throws {
        let document = try JSONValue.parse(Data(#"{"messages":[{"id":"1"}],"unread":0,"a/b":{"~":1}}"#.utf8))
        let patch = try JSONDecoder().decode(JSONPatch.self, from: Data(#"""
            [{"op":"add","path":"/messages/-","value":{"id":"2"}},
             {"op":"add","path":"/messages/0","value":{"id":"0"}},
             {"op":"remove","path":"/messages/1"},
             {"op":"replace","path":"/unread","value":2},
             {"op":"replace","path":"/a~1b/~0","value":3}]
            """#.utf8))
        let expected = try JSONValue.parse(Data(#"{"messages":[{"id":"0"},{"id":"2"}],"unread":2,"a/b":{"~":3}}"#.utf8))
        #expect(try patch.applied(to: document) == expected)
        for misfit in [#"[{"op":"replace","path":"/missing","value":1}]"#, #"[{"op":"remove","path":"/messages/5"}]"#,
                       #"[{"op":"add","path":"/messages/01","value":1}]"#, #"[{"op":"move","path":"/unread","value":1}]"#] {
            let patch = try JSONDecoder().decode(JSONPatch.self, from: Data(misfit.utf8))
            #expect(throws: JSONPatch.Mismatch.self) { try patch.applied(to: document) }
        }
    }

    @Test func reconnectionBacksOffWithJitterUpToHalfAMinute() {
        for attempt in 1...20 {
            let ceiling = min(30_000, 500 << min(attempt - 1, 10))
            let delays = (0..<50).map { _ in LiveUpdates.retryDelay(attempt) }
            #expect(delays.allSatisfy { $0 >= ceiling / 2 && $0 <= ceiling })
        }
        #expect(Set((0..<50).map { _ in LiveUpdates.retryDelay(3) }).count > 1, "no jitter")
    }

    @Test func topicsNameTheirViewModelsAndWhereTheyAreRead() {
        #expect(Topic.chatList.path == "/api/chats" && Topic.badge.path == "/api/badge" && Topic.orders.path == "/api/orders")
        #expect(Topic.chat("7").name == "chat:7" && Topic.chat("7").path == "/api/chats/7")
        #expect(Topic.order("a b").path == "/api/orders/a%20b")
    }

    @Test func aDocumentWrittenOutReadsBackTheSame() throws {
        let document = JSONValue.object(["text": .string("quote \" slash \\ line\n\u{1} é"), "count": .integer(3),
                                         "price": .double(1.5), "none": .null, "list": .array([.bool(true), .bool(false)])])
        #expect(try JSONValue.parse(Data(document.jsonText.utf8)) == document)
    }

    @Test func aDeletedOrderIsNil() throws {
        #expect(try OrderDetails?.decoded(from: .object(["id": .string("3"), "deleted": .bool(true)])) == nil)
    }
}

/// The outbox alone: a send asked for while another is under way (the one a
/// stream that opens starts) returns only once what waited was tried.
@Suite struct OutboxTests {
    /// A post that holds each message until `release`, and counts them.
    actor Server {
        var posted: [String] = []
        var held: [CheckedContinuation<Void, Never>] = []
        func post(_ entry: OutboxEntry) async -> Message {
            await withCheckedContinuation { held.append($0) }
            posted.append(entry.text)
            return Message(id: entry.clientId, text: entry.text, sender: "me", senderName: "me", state: "sent", time: "", sentAt: "")
        }
        func release() -> Bool {
            guard !held.isEmpty else { return false }
            held.removeFirst().resume()
            return true
        }
    }

    @Test func aSendAskedForWhileOneIsUnderWayReturnsOnceEveryMessageWasTried() async throws {
        let outbox = Outbox(store: DiskStore(.none, token: nil))
        try await outbox.keep(OutboxEntry(chatId: "1", clientId: "c1", text: "one"))
        let server = Server()
        let first = Task { try await outbox.sendWaiting { await server.post($0) } }
        // The first send holds its message at the server.
        while await server.held.isEmpty { await Task.yield() }
        let second = Task {
            try await outbox.sendWaiting { await server.post($0) }
            return await outbox.waiting
        }
        while await outbox.sendersWaiting == 0 { await Task.yield() }
        while await !server.release() { await Task.yield() }
        let left = try await second.value
        try await first.value
        #expect(left.isEmpty)
        #expect(await server.posted == ["one"])
    }
}
