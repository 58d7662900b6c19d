import Testing
@testable import TailorHTTP

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
        let request = HTTPRequest(method: .get, path: "/api/orders", query: "q=green+tea&sort=total&x=%E2%82%AC&flag")
        #expect(request.query("q") == "green tea")
        #expect(request.query("sort") == "total")
        #expect(request.query("x") == "€")
        #expect(request.query("flag") == "")
        #expect(request.query("missing") == nil)
    }
}
