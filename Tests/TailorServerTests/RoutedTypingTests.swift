import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// Typing on servers of a bus: a signal goes on the bus only to the servers
/// that serve its contact, and PostgreSQL notifies no server of it.
@Suite struct RoutedTypingTests {
    /// A server on `bus` that counts another gone within a few seconds (see `RoutedBusTests`).
    private static func server(_ location: DatabaseLocation, bus: NatsServer) throws -> TestApp {
        try TestApp(database: location) {
            $0.bus = [bus.url]
            $0.presenceLifetime = 5
        }
    }

    private static func figure(_ name: String, of app: TestApp) throws -> Double {
        try MetricsTests.scrape(app)[MetricsTests.Sample(name: name, labels: [:])] ?? 0
    }

    private static func state(_ event: SSEClient.Event) -> String? {
        (event.json["contactStatus"] as? [String: Any])?["state"] as? String
    }

    /// A connection of the test's own that hears presence's signals through PostgreSQL, as every server does.
    private static func presenceListener(_ location: DatabaseLocation) throws -> PostgresConnection {
        guard case .postgres(let url) = location else { throw TestSkipped() }
        let connection = try PostgresConnection(url: url)
        let schema = try connection.first("SELECT current_schema()", binding: []) { $0.text(0) } ?? "public"
        try connection.execute("LISTEN \"tailor_presence_\(schema)\"")
        return connection
    }

    private struct TestSkipped: Error {}

    /// The typing signals among `payloads` (`server t chat user contact`).
    private static func typing(_ payloads: [String]) -> [String] {
        payloads.filter { $0.split(separator: " ").dropFirst().first == "t" }
    }

    @Test func typingGoesOnTheBusToTheContactsServerAndPostgresNotifiesNoOneOfIt() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        let (a, b, c) = (try Self.server(location, bus: nats), try Self.server(location, bus: nats), try Self.server(location, bus: nats))
        let alice = try a.user("alice")
        let bob = try b.client(as: try a.user("bob"))
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        // Presence is shown between people who talk.
        #expect(try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"hello bob"}"#).status == 201)
        #expect(try bob.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"hello alice"}"#).status == 201)
        let screen = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chat)", timeout: 20)
        _ = try screen.next()
        for app in [a, b, c] {
            #expect(try eventually(timeout: 30) {
                try Self.figure("tailor_bus_postgres_notifications", of: app) == 0 && Self.figure("tailor_bus_typing_hearers", of: app) == 2
            }, "the servers did not come to hear typing on the bus")
        }
        #expect(try eventually { try Self.figure("tailor_served_users", of: b) >= 1 && Self.figure("tailor_bus_interested_servers", of: a) == 2 })
        let listener = try Self.presenceListener(location)

        #expect(try alice.send("POST", "/api/chats/\(chat)/typing").status == 204)
        _ = try screen.next { Self.state($0) == "typing" }
        #expect(Self.typing(try listener.takeNotifications()).isEmpty, "PostgreSQL told every server of the typing")
    }

    @Test func aServerOfAnEarlierKindServingTheContactIsToldThroughPostgres() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        // B is not on the bus: it says whom it serves to no one, and hears only PostgreSQL.
        let (a, b) = (try Self.server(location, bus: nats), try TestApp(database: location) { $0.presenceLifetime = 5 })
        let alice = try a.user("alice")
        let bob = try b.client(as: try a.user("bob"))
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        #expect(try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"hello bob"}"#).status == 201)
        #expect(try bob.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"hello alice"}"#).status == 201)
        let screen = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chat)", timeout: 20)
        _ = try screen.next()
        #expect(try eventually(timeout: 30) { try Self.figure("tailor_presence_other_servers", of: a) == 1 })
        let listener = try Self.presenceListener(location)

        #expect(try alice.send("POST", "/api/chats/\(chat)/typing").status == 204)
        _ = try screen.next { Self.state($0) == "typing" }
        #expect(try eventually { try !Self.typing(listener.takeNotifications()).isEmpty }, "the typing did not go through PostgreSQL")
    }
}
