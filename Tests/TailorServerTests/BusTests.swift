import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// Servers of one PostgreSQL database on a NATS bus of the test's own
/// (`--bus`): commits are announced on the bus and PostgreSQL notifies no one
/// once every server says it is on it; a server without the bus beside them
/// keeps being notified; a bus that goes away and comes back loses nothing.
@Suite struct BusTests {
    /// A server of `location` on `bus` (nil: without one), that counts
    /// another server gone (or not yet heard) within a few seconds: soon
    /// enough for a test to wait, late enough that a busy machine's late
    /// heartbeat does not make it forget the other for a moment. (A server
    /// heard again is not known to be on the bus until its next heartbeat,
    /// and is notified through PostgreSQL meanwhile, as it should be.)
    private static func server(_ location: DatabaseLocation, bus: NatsServer?) throws -> TestApp {
        try TestApp(database: location) {
            $0.bus = bus.map { [$0.url] } ?? []
            $0.presenceLifetime = 5
        }
    }

    private static func gauge(_ name: String, of app: TestApp) throws -> Double? {
        try MetricsTests.scrape(app)[MetricsTests.Sample(name: name, labels: [:])]
    }

    /// A connection of the test's own that listens to the schema's channel
    /// named from `prefix`: the feed's by default, as an older server does.
    static func listener(_ location: DatabaseLocation, to prefix: String = "tailor_feed_") throws -> PostgresConnection {
        guard case .postgres(let url) = location else { throw TestSkipped() }
        let connection = try PostgresConnection(url: url)
        let schema = try connection.first("SELECT current_schema()", binding: []) { $0.text(0) } ?? "public"
        try connection.execute("LISTEN \"\(prefix)\(schema)\"")
        return connection
    }

    private struct TestSkipped: Error {}

    /// Sends `count` messages from alice on `from` and waits until bob's stream on `to` shows the last.
    private static func send(_ count: Int, _ text: String, from alice: APIClient, chat: String, to stream: SSEClient) throws {
        for index in 0..<count {
            #expect(try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"\#(text) \#(index)"}"#).status == 201)
        }
        _ = try stream.next { event in
            ((event.json["messages"] as? [[String: Any]])?.last?["text"] as? String) == "\(text) \(count - 1)"
        }
    }

    @Test func serversOnTheBusHearEachOthersCommitsAndPostgresNotifiesNoOne() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        let (a, b) = (try Self.server(location, bus: nats), try Self.server(location, bus: nats))
        let alice = try a.user("alice")
        let bobOnB = try b.client(as: try a.user("bob"))
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        for app in [a, b] {
            #expect(try eventually(timeout: 30) { try Self.gauge("tailor_bus_postgres_notifications", of: app) == 0 },
                    "a server kept notifying through PostgreSQL with every server on the bus")
        }
        let listener = try Self.listener(location)
        let stream = try SSEClient(port: b.port, token: bobOnB.token, topics: "chat:\(chat)", timeout: 20)
        try Self.send(20, "on the bus", from: alice, chat: chat, to: stream)
        #expect(try listener.takeNotifications().isEmpty, "PostgreSQL notified of commits announced on the bus")
        // Each of alice's commits reached B on the bus: whole, or by its stub alone when it was
        // made before B's word that it serves bob was heard (the stubs of several go in one message).
        #expect(try eventually(timeout: 20) {
            try (Self.gauge("tailor_feed_bodies_heard_total", of: b) ?? 0) + (Self.gauge("tailor_feed_stubs_heard_total", of: b) ?? 0) >= 20
        })
        #expect(try (Self.gauge("tailor_bus_messages_published_total", of: a) ?? 0) > 0)
        #expect(try (Self.gauge("tailor_bus_messages_received_total", of: b) ?? 0) > 0)
        #expect(try Self.gauge("tailor_bus_connected", of: b) == 1)
    }

    @Test func aServerWithoutTheBusBesideOnesOnItIsStillNotified() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        let (a, b) = (try Self.server(location, bus: nats), try Self.server(location, bus: nil))
        let alice = try a.user("alice")
        let bob = try b.client(as: try a.user("bob"))
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        #expect(try eventually(timeout: 30) { try Self.gauge("tailor_presence_other_servers", of: a) == 1 })
        #expect(try Self.gauge("tailor_bus_postgres_notifications", of: a) == 1)
        let listener = try Self.listener(location)
        let stream = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chat)", timeout: 20)
        try Self.send(5, "beside", from: alice, chat: chat, to: stream)
        #expect(try eventually(timeout: 20) { try !listener.takeNotifications().isEmpty }, "no notification through PostgreSQL")
        #expect(try Self.gauge("tailor_bus_postgres_notifications", of: a) == 1, "the server without the bus was forgotten")
    }

    @Test func aBusThatGoesAwayAndComesBackLosesNothing() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        let (a, b) = (try Self.server(location, bus: nats), try Self.server(location, bus: nats))
        let alice = try a.user("alice")
        let bob = try b.client(as: try a.user("bob"))
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        let stream = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chat)", timeout: 20)
        try Self.send(5, "before", from: alice, chat: chat, to: stream)
        nats.stop()
        for app in [a, b] {
            #expect(try eventually(timeout: 30) { try Self.gauge("tailor_bus_connected", of: app) == 0 })
        }
        // Without the bus, PostgreSQL notifies again; nothing waits for the bus.
        try Self.send(5, "while away", from: alice, chat: chat, to: stream)
        try nats.start()
        for app in [a, b] {
            #expect(try eventually(timeout: 30) { try Self.gauge("tailor_bus_connected", of: app) == 1 }, "the bus's connection never came back")
        }
        try Self.send(5, "after", from: alice, chat: chat, to: stream)
        let messages = try #require(try bob.get("/api/chats/\(chat)").json["messages"] as? [[String: Any]])
        #expect(messages.count == 15)
        #expect(try (Self.gauge("tailor_bus_disconnections_total", of: b) ?? 0) >= 1)
    }
}
