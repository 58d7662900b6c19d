import Foundation
import TailorFeed
import TailorStore
import TailorTestSupport
import Testing

/// Servers on a bus route commits by interest: a commit goes whole only to
/// the servers that serve one of its users, and to the others by its stub,
/// which they pass over; a server that comes to serve a user gets what
/// follows whole.
@Suite struct RoutedBusTests {
    /// A server on `bus` that counts another gone within a few seconds:
    /// one forgotten for a moment (a busy machine's late heartbeat) is sent
    /// every commit whole until it says again that it routes by interest.
    static func server(_ location: DatabaseLocation, bus: NatsServer) throws -> TestApp {
        try TestApp(database: location) {
            $0.bus = [bus.url]
            $0.presenceLifetime = 5
        }
    }

    static func figure(_ name: String, of app: TestApp) throws -> Double {
        try MetricsTests.scrape(app)[MetricsTests.Sample(name: name, labels: [:])] ?? 0
    }

    private static func lastText(of event: SSEClient.Event) -> String? {
        (event.json["messages"] as? [[String: Any]])?.last?["text"] as? String
    }

    @Test func aServerThatServesNoneOfACommitsUsersHearsItsStubAlone() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        let (a, b, c) = (try Self.server(location, bus: nats), try Self.server(location, bus: nats), try Self.server(location, bus: nats))
        let alice = try a.user("alice")
        let bob = try b.client(as: try a.user("bob"))
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        for app in [a, b, c] {
            #expect(try eventually(timeout: 30) {
                try Self.figure("tailor_bus_routes_by_interest", of: app) == 1 && Self.figure("tailor_bus_interested_servers", of: app) == 2
            }, "the servers did not come to route by interest")
        }
        let bobsStream = try SSEClient(port: b.port, token: bob.token, topics: "chat:\(chat)", timeout: 20)
        _ = try bobsStream.next()
        let (bodiesOnB, bodiesOnC, stubsOnC) = (try Self.figure("tailor_feed_bodies_heard_total", of: b),
                                               try Self.figure("tailor_feed_bodies_heard_total", of: c),
                                               try Self.figure("tailor_feed_stubs_heard_total", of: c))
        for index in 0..<20 {
            #expect(try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"routed \#(index)"}"#).status == 201)
        }
        _ = try bobsStream.next { Self.lastText(of: $0) == "routed 19" }
        #expect(try Self.figure("tailor_feed_bodies_heard_total", of: b) >= bodiesOnB + 1, "B was not sent its user's commits whole")
        #expect(try eventually { try Self.figure("tailor_feed_stubs_heard_total", of: c) >= stubsOnC + 20 }, "C did not hear the commits' stubs")
        #expect(try Self.figure("tailor_feed_bodies_heard_total", of: c) == bodiesOnC, "C was sent commits of users it does not serve")
        let applied = try Self.figure("tailor_feed_applied_position", of: a)
        #expect(try eventually { try Self.figure("tailor_feed_applied_position", of: c) >= applied }, "C fell behind the feed")

        // Once bob's stream opens on C, C is sent what follows whole.
        let streamOnC = try SSEClient(port: c.port, token: bob.token, topics: "chat:\(chat)", timeout: 20)
        #expect(Self.lastText(of: try streamOnC.next()) == "routed 19")
        #expect(try eventually { try Self.figure("tailor_served_users", of: c) >= 1 })
        try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"to C too"}"#)
        _ = try streamOnC.next { Self.lastText(of: $0) == "to C too" }
        _ = try bobsStream.next { Self.lastText(of: $0) == "to C too" }
        #expect(try eventually { try Self.figure("tailor_feed_bodies_heard_total", of: c) > bodiesOnC }, "C was not sent its new user's commit whole")
    }

    /// While another server's commits are told, a server on the bus reads
    /// the feed at none of its turns: it is read only for what the bus may
    /// have lost, at the first turn of a silence. (It read once a second.)
    @Test func whileCommitsAreToldAServerOnTheBusReadsTheFeedOnlyOnceTheyStop() throws {
        let nats = try NatsServer()
        let location = try TestDatabase.fresh(.postgres)
        let (a, c) = (try Self.server(location, bus: nats), try Self.server(location, bus: nats))
        let alice = try a.user("alice")
        _ = try a.user("bob")
        let chat = try MultiInstanceTests.chat(between: alice, and: "bob")
        for app in [a, c] {
            #expect(try eventually(timeout: 30) { try Self.figure("tailor_bus_routes_by_interest", of: app) == 1 },
                    "the servers did not come to route by interest")
        }
        let readsBefore = try Self.figure("tailor_feed_reads_total", of: c)
        // Eight seconds of messages, ten a second: eight of C's turns, each
        // with stubs told. Reading at every turn would be eight reads. A
        // machine too busy to send for a turn costs a read at that turn and
        // a quiet turn's wait after it; one read more is left for a
        // position the bus was late with.
        let start = ContinuousClock.now
        for index in 0..<80 {
            #expect(try alice.send("POST", "/api/chats/\(chat)/messages", json: #"{"text":"told \#(index)"}"#).status == 201)
            Thread.sleep(forTimeInterval: 0.1)
        }
        let readsWhileTold = try Self.figure("tailor_feed_reads_total", of: c) - readsBefore
        let atMost = 2 + Int((ContinuousClock.now - start) / BusTurns.quietTurn)
        #expect(Int(readsWhileTold) <= atMost, "C read the feed \(readsWhileTold) times while A's commits were told")
        let applied = try Self.figure("tailor_feed_applied_position", of: a)
        #expect(try eventually { try Self.figure("tailor_feed_applied_position", of: c) >= applied }, "C fell behind the feed")
        let readsAfter = try Self.figure("tailor_feed_reads_total", of: c)
        #expect(try eventually { try Self.figure("tailor_feed_reads_total", of: c) > readsAfter }, "C did not read the feed once the commits stopped")
    }
}
