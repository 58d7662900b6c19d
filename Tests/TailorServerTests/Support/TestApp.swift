import Foundation
import TailorApp
import TailorStore
import TailorTestSupport
import Testing

/// The whole application on 127.0.0.1 with a kernel-chosen port and a real
/// SQLite file in a temporary folder, or a fresh schema on the test PostgreSQL server.
final class TestApp {
    let application: Application
    let folder: URL
    var port: Int { application.port }

    init(backend: Backend = .sqlite, database: DatabaseLocation? = nil, botDelay: Double = 0.05, heartbeat: Double = 15, configure: (inout TailorConfiguration) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = TailorConfiguration()
        configuration.server.port = 0
        configuration.server.loopCount = 2
        configuration.publicFolder = nil
        let file = folder.appendingPathComponent("tailor.sqlite").path
        configuration.database = try database ?? (backend == .sqlite ? .sqlite(path: file) : TestDatabase.fresh(.postgres))
        configuration.botDelay = botDelay
        configuration.heartbeat = heartbeat
        configure(&configuration)
        application = try Application(configuration: configuration)
        try application.start()
    }

    deinit {
        application.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Waits until the server counts at most `count` open connections, or
    /// `timeout` seconds pass. A stream that ended has left before its
    /// connection closed. At most: an idle client may be closed meanwhile.
    func waitForConnections(atMost count: Int, timeout: Double = 20) -> Bool {
        application.waitForConnections(timeout: timeout) { $0 <= count }
    }

    func client() throws -> APIClient {
        try APIClient(port: port)
    }

    /// A new connection to this app that speaks as `user` (their token).
    func client(as user: APIClient) throws -> APIClient {
        let client = try client()
        client.token = user.token
        return client
    }

    /// Signs up `name` and returns a client that sends its token.
    /// Users alice and bob, and the chat alice opened with bob.
    func aliceAndBobInAChat() throws -> (alice: APIClient, bob: APIClient, chatID: String) {
        let alice = try user("alice")
        let bob = try user("bob")
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        return (alice, bob, chatID)
    }

    func user(_ name: String) throws -> APIClient {
        try APIClient.signedUp(name, port: port)
    }
}

/// A keep-alive HTTP client for the JSON API, used by one thread at a time
/// (which may be a thread of the test's own, hence `@unchecked Sendable`).
final class APIClient: @unchecked Sendable {
    let connection: RawClient
    let port: Int
    var token: String?
    var userID: String?

    init(port: Int) throws {
        self.port = port
        connection = try RawClient(port: port)
    }

    /// Signs up `name` on the server at `port` and returns a client that sends its token.
    static func signedUp(_ name: String, port: Int) throws -> APIClient {
        let client = try APIClient(port: port)
        let response = try client.send("POST", "/api/users", json: #"{"name":"\#(name)"}"#)
        guard response.status == 201, let token = response.json["token"] as? String else {
            throw RawClient.Failure(description: "sign-up of \(name) failed: \(response.status) \(response.text)")
        }
        client.token = token
        client.userID = (response.json["user"] as? [String: Any])?["id"] as? String
        return client
    }

    @discardableResult
    func send(_ method: String, _ path: String, json: String? = nil, headers: [String] = [], contentType: String? = "application/json") throws -> TestResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: test\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for header in headers { head += header + "\r\n" }
        let body = Array((json ?? "").utf8)
        if json != nil {
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            head += "Content-Length: \(body.count)\r\n"
        }
        try connection.send(Array((head + "\r\n").utf8) + body)
        return try connection.readResponse(bodyless: method == "HEAD")
    }

    func get(_ path: String, headers: [String] = []) throws -> TestResponse {
        try send("GET", path, headers: headers)
    }

    /// The first view model of `topic` (`chat:7`, `order:3`, `badge`) for
    /// which `condition` holds: the current one, then each change as the
    /// server sends it on an event stream, for at most `timeout` seconds. A
    /// server that answers 503 (not caught up yet) is asked again after the
    /// Retry-After it gives.
    func waitFor(topic: String, timeout: Double = 20, _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let giveUp = Date().addingTimeInterval(timeout)
        var stream = try SSEClient(port: port, token: token, topics: topic, timeout: timeout)
        // As a client must: the server said when to ask again.
        var pace = Pace(every: min(Double(stream.response.header("retry-after") ?? "") ?? 1, timeout))
        while stream.response.status == 503, Date() < giveUp {
            pace.wait()
            stream = try SSEClient(port: port, token: token, topics: topic, timeout: timeout)
        }
        guard stream.response.status == 200 else {
            throw RawClient.Failure(description: "\(topic): the stream was refused with \(stream.response.status)")
        }
        while true {
            let view = try stream.next().json
            if condition(view) { return view }
            if Date() > giveUp { throw RawClient.Failure(description: "\(topic) is still \(view) after \(timeout) s") }
        }
    }
}

extension TestResponse {
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }
}
