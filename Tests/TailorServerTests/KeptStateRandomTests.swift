import Foundation
import TailorStore
import TailorTestSupport
import Testing

/// Random writes among users whose chats a server keeps in memory and one it
/// never keeps (more than 1,024 chats): privacy changes, blocks and unblocks,
/// messages and read marks. After each write's answer, every view the server
/// answers is the one a server that kept and cached nothing builds from the
/// database. On PostgreSQL that fresh server runs beside it, after every write;
/// on SQLite, which one server holds at a time, the server is stopped every few
/// writes and its last answers are compared with the next one's first.
@Suite struct KeptStateRandomTests {
    private static let chatsOfTheHub = 1_030

    @Test(arguments: Backend.allCases)
    func viewsAfterRandomWritesAreTheDatabasesForKeptAndNotKeptUsers(_ backend: Backend) throws {
        let location = try TestDatabase.fresh(backend)
        let names = ["hub", "ann", "ben", "cat"]
        var users: [String: APIClient] = [:]
        var hubID: String?
        do {
            let first = try TestApp(database: location)
            for name in names { users[name] = try first.user(name) }
            hubID = (try users["hub"]!.get("/api/me").json["user"] as? [String: Any])?["id"] as? String
            first.application.shutdown()
        }
        // The hub's chats past what a server keeps of one user, written straight into the database.
        try Self.addChats(Self.chatsOfTheHub, to: try #require(hubID.flatMap { Int($0) }), in: location)

        var server = try TestApp(database: location)
        var chats: [(id: String, members: [String])] = []
        for (opener, contact) in [("hub", "ann"), ("hub", "ben"), ("ann", "ben"), ("ben", "cat")] {
            let answer = try server.client(as: users[opener]!).send("POST", "/api/chats", json: #"{"contact":"\#(contact)"}"#)
            chats.append((try #require(answer.json["id"] as? String), [opener, contact]))
        }
        // Both members of each chat write, so that each sees the other's presence until a change hides it.
        for chat in chats {
            for name in chat.members {
                _ = try server.client(as: users[name]!).send("POST", "/api/chats/\(chat.id)/messages", json: #"{"text":"hello"}"#)
            }
        }
        // Kept open, so that a read follows the write's answer at once, as a page's does.
        var clients = try Self.clients(on: server, of: users)
        var random = SystemRandomNumberGenerator()
        var differences: [String] = []
        for step in 0..<36 {
            let chat = chats.randomElement(using: &random)!
            let name = chat.members.randomElement(using: &random)!
            let client = clients[name]!
            let write: String
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                write = "\(name) sends in \(chat.id)"
                _ = try client.send("POST", "/api/chats/\(chat.id)/messages", json: #"{"text":"m\#(step)"}"#)
            case 4..<6:
                write = "\(name) reads \(chat.id)"
                _ = try client.send("POST", "/api/chats/\(chat.id)/read")
            case 6..<8:
                let shows = Bool.random(using: &random)
                write = "\(name) shows presence: \(shows)"
                #expect(try client.send("PUT", "/api/me/privacy", json: #"{"showPresence":\#(shows)}"#).status == 200)
            default:
                let blocks = Bool.random(using: &random)
                write = "\(name) \(blocks ? "blocks" : "unblocks") \(chat.id)"
                _ = try client.send("POST", "/api/chats/\(chat.id)/\(blocks ? "block" : "unblock")")
            }
            let answered = try Self.views(through: clients, chats: chats)
            if backend == .postgres {
                let fresh = try TestApp(database: location)
                differences += Self.differences(answered, try Self.views(through: Self.clients(on: fresh, of: users), chats: chats), after: write)
            } else if step % 6 == 5 {
                server.application.shutdown()
                server = try TestApp(database: location)
                clients = try Self.clients(on: server, of: users)
                differences += Self.differences(answered, try Self.views(through: clients, chats: chats), after: write)
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(5))")
    }

    /// A connection to `server` for each of `users`, as that user.
    private static func clients(on server: TestApp, of users: [String: APIClient]) throws -> [String: APIClient] {
        try users.mapValues { try server.client(as: $0) }
    }

    /// Each user's chat list, badge and chat screens, as their connection's server answers them now.
    private static func views(through clients: [String: APIClient], chats: [(id: String, members: [String])]) throws -> [String: String] {
        var views: [String: String] = [:]
        for (name, client) in clients {
            var paths = ["/api/chats", "/api/badge"]
            paths += chats.filter { $0.members.contains(name) }.map { "/api/chats/\($0.id)" }
            for path in paths { views["\(name) \(path)"] = String(decoding: try client.get(path).body, as: UTF8.self) }
        }
        return views
    }

    private static func differences(_ answered: [String: String], _ fresh: [String: String], after write: String) -> [String] {
        answered.keys.sorted().compactMap { key in
            answered[key] == fresh[key] ? nil : "after \(write): \(key) was \(answered[key] ?? "-"), fresh \(fresh[key] ?? "-")"
        }
    }

    /// `count` users, each in a chat with `hub`, as a long-lived account has them.
    private static func addChats(_ count: Int, to hub: Int, in location: DatabaseLocation) throws {
        let connection = try TestDatabase.connection(to: location)
        let numbers = connection.engine == .postgres ? "SELECT generate_series(1, \(count)) AS i"
            : "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count)) SELECT i FROM n"
        try connection.run("INSERT INTO users (name, name_key, created_at) SELECT 'many' || i, 'many' || i, 0 FROM (\(numbers)) numbers")
        try connection.run("INSERT INTO chats (user_a, user_b, created_at) SELECT ?, id, 0 FROM users WHERE name LIKE 'many%'", hub)
        try connection.run("""
            INSERT INTO chat_members (chat_id, user_id, read_through)
            SELECT c.id, c.user_a, 0 FROM chats c JOIN users u ON u.id = c.user_b WHERE u.name LIKE 'many%'
            UNION ALL SELECT c.id, c.user_b, 0 FROM chats c JOIN users u ON u.id = c.user_b WHERE u.name LIKE 'many%'
            """)
    }
}
