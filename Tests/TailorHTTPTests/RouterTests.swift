import Logging
import Synchronization
@testable import TailorHTTP
import Testing

@Suite struct RouterTests {
    private func router() -> Router {
        var router = Router()
        router.get("/api/chats") { _ in .json("list") }
        router.post("/api/chats") { _ in .json("create") }
        router.get("/api/chats/{id}") { request in .json("chat " + request.parameter("id")!) }
        router.post("/api/chats/{id}/messages") { request in .json("send " + request.parameter("id")!) }
        return router
    }

    private func body(_ method: HTTPMethod, _ path: String) async -> (Int, String, HTTPResponse) {
        let response = await HTTPResponder(router: router()).respond(to: HTTPRequest(method: method, path: path))
        return (response.status.code, String(decoding: response.body.bytes, as: UTF8.self), response)
    }

    @Test func literalAndParameterRoutesMatch() async {
        #expect(await body(.get, "/api/chats").1 == "list")
        #expect(await body(.post, "/api/chats").1 == "create")
        #expect(await body(.get, "/api/chats/42").1 == "chat 42")
        #expect(await body(.get, "/api/chats/42/").1 == "chat 42")
        #expect(await body(.post, "/api/chats/7/messages").1 == "send 7")
    }

    /// Paths split on their bytes: a parameter keeps any characters but `/`,
    /// and a path no pattern starts like is not found without trying them.
    @Test func patternsMatchOnBytesAndOthersAreNotFound() async {
        #expect(await body(.get, "/api/chats/é👍🏽").1 == "chat é👍🏽")
        #expect(await body(.get, "/api/chats//").0 == 404)
        #expect(await body(.get, "/orders.json").0 == 404)
        #expect(await body(.get, "/").0 == 404)
        var router = Router()
        router.get("/{name}/about") { request in .json("about " + request.parameter("name")!) }
        let response = await HTTPResponder(router: router).respond(to: HTTPRequest(method: .get, path: "/tea/about"))
        #expect(String(decoding: response.body.bytes, as: UTF8.self) == "about tea")
    }

    @Test func headUsesGet() async {
        #expect(await body(.head, "/api/chats/1").1 == "chat 1")
    }

    @Test func unknownPathsAre404AndWrongMethods405() async {
        #expect(await body(.get, "/api/chats/1/unknown").0 == 404)
        #expect(await body(.get, "/api").0 == 404)
        let (status, _, response) = await body(.delete, "/api/chats")
        #expect(status == 405)
        #expect(response.header("Allow") == "GET, HEAD, POST")
    }

    @Test func thrownHTTPErrorsRenderAsJSON() async {
        var router = Router()
        router.get("/fail") { _ in throw HTTPError(.conflict, code: "taken", message: "The name \"x\" is taken.") }
        let response = await HTTPResponder(router: router).respond(to: HTTPRequest(method: .get, path: "/fail"))
        #expect(response.status == .conflict)
        #expect(String(decoding: response.body.bytes, as: UTF8.self) == #"{"error":{"code":"taken","message":"The name \"x\" is taken."}}"#)
    }

    @Test func queryItemsAreDecoded() {
        let items = QueryString.items(ArraySlice("q=green+tea&sort=total&x=%E2%82%AC&flag".utf8))
        #expect(QueryString.items(ArraySlice("q=%zz".utf8)) == nil)
        let request = HTTPRequest(method: .get, path: "/api/orders", queryItems: items ?? [])
        #expect(request.query("q") == "green tea")
        #expect(request.query("sort") == "total")
        #expect(request.query("x") == "€")
        #expect(request.query("flag") == "")
        #expect(request.query("missing") == nil)
    }

    /// Every 5xx is logged with its cause; a failure the application knows
    /// (here: a full disk) gets its own answer.
    @Test func aFailureIsLoggedWithItsCauseAndAnswered() async {
        struct DiskFull: Error {}
        struct Broken: Error {}
        let lines = RecordedLines()
        var router = Router()
        router.get("/full") { _ in throw DiskFull() }
        router.get("/broken") { _ in throw Broken() }
        let responder = HTTPResponder(
            router: router,
            answerForFailure: { $0 is DiskFull ? HTTPError(.insufficientStorage, code: "storage_full", message: "full") : nil },
            logger: Logger(label: "test") { _ in lines })
        let full = await responder.respond(to: HTTPRequest(method: .get, path: "/full"))
        #expect(full.status == .insufficientStorage)
        #expect(await responder.respond(to: HTTPRequest(method: .get, path: "/broken")).status == .internalServerError)
        let logged = lines.all
        #expect(logged.count == 2)
        #expect(logged.first?.contains("GET /full answered 507 storage_full: DiskFull") == true)
        #expect(logged.last?.contains("GET /broken answered 500 internal_error: Broken") == true)
        // The line names the request as its answer does.
        let id = full.requestID
        #expect(id != nil && logged.first?.hasSuffix("(request \(id!))") == true)
        // And says it as metadata too, for log handlers that keep fields.
        let fields = lines.fields.first ?? [:]
        #expect(fields["request"] == .string(id ?? "?"))
        #expect(fields["route"] == "/full")
        #expect(fields["status"] == "507")
        #expect(fields["ms"] != nil && fields["user"] == "-")
    }

    @Test func aFloodOfFailuresIsLoggedInPart() {
        let lines = RecordedLines()
        let log = ThrottledLog(logger: Logger(label: "test") { _ in lines }, burst: 3, interval: 3600)
        for index in 0..<100 { log.log("failure \(index)") }
        #expect(lines.all == ["failure 0", "failure 1", "failure 2"])
    }
}

/// A log handler that keeps the messages it is given.
final class RecordedLines: LogHandler, Sendable {
    private let lines = Mutex<[(message: String, metadata: Logger.Metadata)]>([])
    var all: [String] { lines.withLock { $0.map(\.message) } }
    var fields: [Logger.Metadata] { lines.withLock { $0.map(\.metadata) } }

    func log(event: LogEvent) {
        lines.withLock { $0.append(("\(event.message)", event.metadata ?? [:])) }
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
}
