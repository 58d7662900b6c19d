import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// Databases made by earlier releases answer as they did: chat lists, screens
/// with their read ticks, and badges are the same after the migrations.
@Suite struct MigrationTests {
    /// What one user was answered, in the fixture's `expected.json`: per chat
    /// of the list its id, unread count and last message; per screen its
    /// unread count and each message's id, sender, state and text.
    private struct Answers: Decodable, Equatable {
        struct Screen: Decodable, Equatable {
            let unreadMessageCount: Int
            let messages: [[String]]
        }

        let badge: Int
        let chats: [[Item]]
        let screens: [String: Screen]

        enum Item: Decodable, Equatable {
            case text(String)
            case number(Int)

            init(from decoder: any Decoder) throws {
                let value = try decoder.singleValueContainer()
                if let number = try? value.decode(Int.self) { self = .number(number) } else { self = .text(try value.decode(String.self)) }
            }
        }
    }

    private struct Expected: Decodable {
        let tokens: [String: String]
        let users: [String: Answers]
    }

    /// What `client` is answered now, in the fixture's shape.
    private func answers(of client: APIClient) throws -> Answers {
        let list = try client.get("/api/chats").json["items"] as? [[String: Any]] ?? []
        var screens: [String: Answers.Screen] = [:]
        for item in list {
            let id = item["id"] as? String ?? ""
            let screen = try client.get("/api/chats/\(id)").json
            let messages = (screen["messages"] as? [[String: Any]] ?? []).map { message in
                ["id", "sender", "state", "text"].map { message[$0] as? String ?? "" }
            }
            screens[id] = Answers.Screen(unreadMessageCount: screen["unreadMessageCount"] as? Int ?? -1, messages: messages)
        }
        return Answers(badge: try client.get("/api/badge").json["unread"] as? Int ?? -1,
                       chats: list.map { [.text($0["id"] as? String ?? ""), .number($0["unreadMessageCount"] as? Int ?? -1),
                                          .text($0["message"] as? String ?? "")] },
                       screens: screens)
    }

    /// `Tests/Fixtures/schema-8`: a SQLite file written by the release before
    /// read cursors (schema version 8, read marks per message), with what
    /// that release answered each of its three users.
    @Test func aDatabaseOfTheReleaseBeforeReadCursorsAnswersAsItDid() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/schema-8")
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: fixture.appendingPathComponent("expected.json")))
        let copy = try TestDatabase.fresh(.sqlite)
        guard case .sqlite(let path) = copy else { return }
        try FileManager.default.copyItem(atPath: fixture.appendingPathComponent("tailor.sqlite").path, toPath: path)
        let app = try TestApp(database: copy)
        for (name, answered) in expected.users {
            let client = try app.client()
            client.token = expected.tokens[name]
            #expect(try answers(of: client) == answered, "\(name)")
        }
        // And the cursors go on from there: bob reads, alice's ticks turn.
        let bob = try app.client()
        bob.token = expected.tokens["bob"]
        let chatID = try #require(expected.users["bob"]?.chats.first { $0[2] == .text("b to a later 1") }?[0])
        guard case .text(let id) = chatID else { return }
        #expect(try bob.send("POST", "/api/chats/\(id)/read").json["read"] as? Int == 3)
        let alice = try app.client()
        alice.token = expected.tokens["alice"]
        let states = (try alice.get("/api/chats/\(id)").json["messages"] as? [[String: Any]] ?? []).map { $0["state"] as? String }
        #expect(states.allSatisfy { $0 == "read" } == false, "bob's own two stay unread by alice")
        #expect(states.prefix(9).allSatisfy { $0 == "read" }, "\(states)")
    }

    /// PostgreSQL as the release before read cursors left it (read marks per
    /// message), migrated: counts, ticks and badges as they were.
    @Test func aPostgreSQLDatabaseOfTheReleaseBeforeReadCursorsAnswersAsItDid() throws {
        let location = try TestDatabase.fresh(.postgres)
        guard case .postgres(let url) = location else { return }
        let old = try PostgresConnection(url: url)
        try PostgresSchema.migrate(old, upTo: 6)
        try old.execute("""
            INSERT INTO users (name, name_key, created_at) VALUES ('alice', 'alice', 1), ('bob', 'bob', 1);
            INSERT INTO tokens (hash, user_id, created_at) SELECT sha256(convert_to(name, 'UTF8')), id, 1 FROM users WHERE name <> 'bot';
            INSERT INTO chats (user_a, user_b, created_at) VALUES (2, 3, 1);
            INSERT INTO messages (chat_id, sender_id, text, sent_at, read_at) VALUES
                (1, 2, 'a1', 1, 9), (1, 2, 'a2', 2, 9), (1, 3, 'b1', 3, 9), (1, 2, 'a3', 4, NULL), (1, 3, 'b2', 5, NULL), (1, 3, 'b3', 6, NULL);
            """)
        let app = try TestApp(database: location)
        let alice = try app.client()
        alice.token = "alice"
        let bob = try app.client()
        bob.token = "bob"
        let states = { (client: APIClient) throws -> [String] in
            (try client.get("/api/chats/1").json["messages"] as? [[String: Any]] ?? []).map { "\($0["text"] ?? "") \($0["state"] ?? "")" }
        }
        #expect(try states(alice) == ["a1 read", "a2 read", "b1 read", "a3 sent", "b2 sent", "b3 sent"])
        #expect(try alice.get("/api/badge").json["unread"] as? Int == 2)
        #expect(try bob.get("/api/badge").json["unread"] as? Int == 1)
        #expect(try bob.get("/api/chats").json["items"].map { ($0 as? [[String: Any]])?.first?["unreadMessageCount"] as? Int } == 1)
    }
}
