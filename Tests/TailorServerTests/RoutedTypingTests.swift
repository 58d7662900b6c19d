import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// Typing on servers of a bus: a signal goes on the bus only to the servers
/// that serve its contact, and PostgreSQL notifies no server of it.
@Suite struct RoutedTypingTests {
    private static func state(_ event: SSEClient.Event) -> String? {
        (event.json["contactStatus"] as? [String: Any])?["state"] as? String
    }

    /// The typing signals among `payloads` (`server t chat user contact`).
    private static func typing(_ payloads: [String]) -> [String] {
        payloads.filter { $0.split(separator: " ").dropFirst().first == "t" }
    }

    /// Alice on `a` and bob on `b` in a chat where each has written (presence
    /// is shown between people who talk), and bob's chat screen open on `b`.
    private static func aliceTalkingToBob(on a: TestApp, _ b: TestApp) throws -> (alice: APIClient, chat: String, screen: SSEClient) {
        let alice = try a.user("alice")
        let bob = try b.client(as: try a.user("bob"))
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        #expect(try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"hello bob"}"#).status == 201)
        #expect(try bob.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"hello alice"}"#).status == 201)
        let screen = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chat)", timeout: 20)
        _ = try screen.next()
        return (alice, chat, screen)
    }

    @Test func typingGoesOnTheBusToTheContactsServerAndPostgresNotifiesNoOneOfIt() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        let servers = try (0..<3).map { _ in try RoutedBusTests.server(location, bus: nats) }
        let (alice, chat, screen) = try Self.aliceTalkingToBob(on: servers[0], servers[1])
        for app in servers {
            #expect(try eventually(timeout: 30) {
                try RoutedBusTests.figure("tailor_bus_postgres_notifications", of: app) == 0
                    && RoutedBusTests.figure("tailor_bus_typing_hearers", of: app) == 2
            }, "the servers did not come to hear typing on the bus")
        }
        #expect(try eventually {
            try RoutedBusTests.figure("tailor_served_users", of: servers[1]) >= 1
                && RoutedBusTests.figure("tailor_bus_interested_servers", of: servers[0]) == 2
        })
        let listener = try BusTests.listener(location, to: "tailor_presence_")

        #expect(try alice.send("POST", "/api/chats/\(chat)/typing").status == 204)
        _ = try screen.next { Self.state($0) == "typing" }
        #expect(Self.typing(try listener.takeNotifications()).isEmpty, "PostgreSQL told every server of the typing")
    }

    @Test func aServerOffTheBusServingTheContactIsToldThroughPostgres() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        // B is not on the bus: it says whom it serves to no one, and hears only PostgreSQL.
        let (a, b) = (try RoutedBusTests.server(location, bus: nats), try TestApp(database: location) { $0.presenceLifetime = 5 })
        let (alice, chat, screen) = try Self.aliceTalkingToBob(on: a, b)
        #expect(try eventually(timeout: 30) { try RoutedBusTests.figure("tailor_presence_other_servers", of: a) == 1 })
        let listener = try BusTests.listener(location, to: "tailor_presence_")

        #expect(try alice.send("POST", "/api/chats/\(chat)/typing").status == 204)
        _ = try screen.next { Self.state($0) == "typing" }
        #expect(try eventually { try !Self.typing(listener.takeNotifications()).isEmpty }, "the typing did not go through PostgreSQL")
    }
}
