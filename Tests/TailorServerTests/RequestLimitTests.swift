import Foundation
import TailorHTTP
import Testing

/// Every limit and malformed input answers with its status and the JSON error,
/// and the connection closes where the stream can no longer be trusted.
@Suite struct RequestLimitTests {
    private func exchange(_ raw: String, configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> (TestResponse, closed: Bool) {
        let server = try TestServer(configure: configure)
        let client = try server.client()
        try client.send(raw)
        let response = try client.readResponse()
        return (response, client.isClosedByServer())
    }

    @Test func requestLineOverTheLimitIs414() throws {
        let path = "/" + String(repeating: "a", count: 9000)
        let (response, closed) = try exchange("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(response.status == 414)
        #expect(response.errorCode == "uri_too_long")
        #expect(closed)
    }

    @Test func requestLineLimitIsConfigurable() throws {
        let (response, _) = try exchange("GET /\(String(repeating: "a", count: 200)) HTTP/1.1\r\nHost: test\r\n\r\n") {
            $0.parserLimits.maxRequestLineBytes = 100
        }
        #expect(response.status == 414)
    }

    @Test func headOverSixtyFourKiBIs431() throws {
        let big = (0..<70).map { "X-Filler-\($0): \(String(repeating: "b", count: 1000))\r\n" }.joined()
        let (response, closed) = try exchange("GET /healthz HTTP/1.1\r\nHost: test\r\n\(big)\r\n")
        #expect(response.status == 431)
        #expect(response.errorCode == "headers_too_large")
        #expect(closed)
    }

    @Test func moreThanAHundredFieldsIs431() throws {
        let many = (0..<101).map { "X-Field-\($0): v\r\n" }.joined()
        let (response, closed) = try exchange("GET /healthz HTTP/1.1\r\nHost: test\r\n\(many)\r\n")
        #expect(response.status == 431)
        #expect(closed)
    }

    @Test func bodyOverTheLimitIs413WithoutReadingIt() throws {
        let server = try TestServer { $0.maxBodyBytes = 1000 }
        let client = try server.client()
        // Only the head is sent: the answer must not wait for the body.
        try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5000\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 413)
        #expect(response.errorCode == "body_too_large")
        #expect(response.header("connection") == "close")
    }

    @Test func chunkedBodyOverTheLimitIs413() throws {
        let chunk = String(repeating: "z", count: 600)
        let raw = "POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n"
        let (response, closed) = try exchange(raw) { $0.maxBodyBytes = 1000 }
        #expect(response.status == 413)
        #expect(closed)
    }

    @Test func bodyWithinTheLimitIsEchoed() throws {
        let server = try TestServer()
        let client = try server.client()
        let body = String(repeating: "0123456789", count: 50_000)
        try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == body)
    }

    @Test func chunkedBodyIsDecoded() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
            + "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().text == "hello, world")
        #expect(try client.readResponse().status == 200)
    }

    @Test func expectContinueGetsAnInterimResponseBeforeTheBody() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try client.readResponse()
        #expect(interim.status == 100)
        try client.send("hello")
        let final = try client.readResponse()
        #expect(final.status == 200)
        #expect(final.text == "hello")
    }

    @Test func expectContinueWithTooLargeBodyGets413Instead() throws {
        let server = try TestServer { $0.maxBodyBytes = 10 }
        let client = try server.client()
        try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n")
        #expect(try client.readResponse().status == 413)
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET /healthz HTTP/1.1\r\n\r\n", 400),  // no Host
        ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET /healthz HTTP/1.1\nHost: test\n\n", 400),  // bare LF
        ("GET /healthz HTTP/1.1\r\nHost : test\r\n\r\n", 400),  // space before colon
        ("GET /healthz HTTP/1.1\r\nHost: test\r\n folded\r\n\r\n", 400),
        ("GET /heal%zzthz HTTP/1.1\r\nHost: test\r\n\r\n", 400),
        ("GET /a%00b HTTP/1.1\r\nHost: test\r\n\r\n", 400),
        ("GET /healthz HTTP/2.0\r\nHost: test\r\n\r\n", 505),
        ("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
        ("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3, 4\r\n\r\nabc", 400),
        ("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        ("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ("GET /healthz HTTP/1.1\r\nHost: test\r\nExpect: teapot\r\n\r\n", 417),
    ])
    func malformedRequestsAreRefusedAndClosed(raw: String, status: Int) throws {
        let (response, closed) = try exchange(raw)
        #expect(response.status == status)
        #expect(response.errorCode != nil)
        #expect(response.header("content-type") == "application/json; charset=utf-8")
        #expect(closed)
    }

    @Test func unknownRouteIs404AndWrongMethodIs405WithAllow() throws {
        let server = try TestServer()
        let missing = try server.get("/api/nothing")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "not_found")
        let client = try server.client()
        try client.send("DELETE /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        let wrong = try client.readResponse()
        #expect(wrong.status == 405)
        #expect(wrong.header("allow") == "GET, HEAD")
        #expect(wrong.errorCode == "method_not_allowed")
    }

    @Test func leadingEmptyLinesBeforeARequestAreIgnored() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send("\r\n\r\nGET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    /// The second part goes out only once the server has read the first (its
    /// socket's receive queue is empty), so every split is one the parser sees.
    @Test func aRequestSplitAtEveryByteIsParsedTheSame() throws {
        let server = try TestServer()
        let raw = Array("POST /echo?x=1 HTTP/1.1\r\nHost: test\r\nContent-Length: 4\r\n\r\nbody".utf8)
        let client = try server.client()
        let connection = try ServerSideSocket(serverPort: server.port, client: client)
        for split in 1..<raw.count {
            try client.send(Array(raw[..<split]))
            let read = try connection.waitUntilRead()
            let unread = try connection.unread()
            #expect(read, "split at \(split): \(unread.map(String.init) ?? "no socket") bytes unread")
            try client.send(Array(raw[split...]))
            let response = try client.readResponse()
            #expect(response.status == 200 && response.text == "body", "split at \(split)")
        }
    }
}
