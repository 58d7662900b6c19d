@testable import TailorHTTP
import Testing

/// The request parser over a table of valid and malformed heads, fed whole, byte
/// by byte, and several requests at once.
@Suite struct RequestParserTests {
    enum Expected {
        case head(method: HTTPMethod, path: String, query: String, keepAlive: Bool, framing: HTTPRequestHead.BodyFraming)
        case failure(status: Int)
    }

    static let table: [(String, Expected)] = [
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", .head(method: .get, path: "/", query: "", keepAlive: true, framing: .none)),
        ("GET /api/chats?limit=5&x=%20 HTTP/1.1\r\nHost: a\r\n\r\n",
         .head(method: .get, path: "/api/chats", query: "limit=5&x= ", keepAlive: true, framing: .none)),
        ("GET /caf%C3%A9/a%20b HTTP/1.1\r\nHost: a\r\n\r\n", .head(method: .get, path: "/café/a b", query: "", keepAlive: true, framing: .none)),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: Keep-Alive, Close\r\n\r\n", .head(method: .get, path: "/", query: "", keepAlive: false, framing: .none)),
        ("GET / HTTP/1.0\r\n\r\n", .head(method: .get, path: "/", query: "", keepAlive: false, framing: .none)),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", .head(method: .get, path: "/", query: "", keepAlive: true, framing: .none)),
        ("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n", .head(method: .post, path: "/x", query: "", keepAlive: true, framing: .length(12))),
        ("POST /x HTTP/1.1\r\nHost: a\r\ncontent-length:0\r\n\r\n", .head(method: .post, path: "/x", query: "", keepAlive: true, framing: .none)),
        ("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n", .head(method: .post, path: "/x", query: "", keepAlive: true, framing: .chunked)),
        ("PATCH /o/1 HTTP/1.1\r\nHost: a\r\n\r\n", .head(method: .patch, path: "/o/1", query: "", keepAlive: true, framing: .none)),
        ("BREW /pot HTTP/1.1\r\nHost: a\r\n\r\n", .head(method: .other("BREW"), path: "/pot", query: "", keepAlive: true, framing: .none)),
        ("GET http://example.com/p?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", .head(method: .get, path: "/p", query: "q=1", keepAlive: true, framing: .none)),
        ("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", .head(method: .options, path: "*", query: "", keepAlive: true, framing: .none)),
        ("\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", .head(method: .get, path: "/", query: "", keepAlive: true, framing: .none)),
        ("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n",
         .head(method: .post, path: "/x", query: "", keepAlive: true, framing: .length(Int.max))),

        ("GET / HTTP/1.1\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.1\r\nHost: a\nX: y\r\n\r\n", .failure(status: 400)),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET noslash HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.2x\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/3.0\r\nHost: a\r\n\r\n", .failure(status: 505)),
        ("GET / HTTP/1.1\r\nHost: a\r\nBad Name: v\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\u{01}b\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.1\r\nHost: a\r\n\tfolded\r\n\r\n", .failure(status: 400)),
        ("GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET /%ff HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET /%00 HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET /o?q=%zz HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET /o?q=% HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET /o?q=%00 HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET /o?%ff=1 HTTP/1.1\r\nHost: a\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer x\r\nauthorization: Bearer y\r\n\r\n", .failure(status: 400)),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Type: application/json\r\n\r\n", .failure(status: 400)),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", .failure(status: 400)),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\n", .failure(status: 400)),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", .failure(status: 400)),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .failure(status: 501)),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: compress\r\n\r\n", .failure(status: 501)),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .failure(status: 400)),
        ("GET / HTTP/1.1\r\nHost: a\r\nExpect: something\r\n\r\n", .failure(status: 417)),
    ]

    @Test func tableParsesWhole() {
        for (raw, expected) in Self.table {
            check(parseWhole(raw), expected, raw)
        }
    }

    /// Every head fed one byte more at a time, as slow clients send it: the
    /// result is the same as for the whole, and no prefix is mistaken for a head.
    @Test func tableParsesFedByteByByte() {
        for (raw, expected) in Self.table {
            let bytes = Array(raw.utf8)
            var parser = HTTPRequestParser()
            var result: HTTPRequestParser.Result = .needMoreData
            for end in 1...bytes.count {
                result = bytes[0..<end].withUnsafeBytes { parser.parse($0) }
                if case .needMoreData = result { continue }
                if case .head(_, let length) = result { #expect(length == bytes.count, "\(raw)") }
                break
            }
            check(result, expected, raw)
        }
    }

    @Test func pipelinedHeadsInOneBufferAreReadOneAfterAnother() {
        let raw = Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c".utf8)
        var parser = HTTPRequestParser()
        var offset = 0
        var paths: [String] = []
        while case .head(let head, let length) = raw[offset...].withUnsafeBytes({ parser.parse($0) }) {
            paths.append(head.path)
            offset += length
            parser.reset()
        }
        #expect(paths == ["/a", "/b"])
        #expect(String(decoding: raw[offset...], as: UTF8.self) == "GET /c")
    }

    @Test func limitsGiveTheirStatuses() {
        let limits = HTTPRequestParser.Limits(maxRequestLineBytes: 64, maxHeadBytes: 256, maxHeaderFields: 3)
        func status(_ raw: String) -> Int? {
            var parser = HTTPRequestParser(limits: limits)
            if case .failure(let error) = Array(raw.utf8).withUnsafeBytes({ parser.parse($0) }) { return error.status.code }
            return nil
        }
        #expect(status("GET /\(String(repeating: "a", count: 100)) HTTP/1.1\r\n") == 414)
        // Without any line end yet, a long line is refused as soon as it passes the limit.
        #expect(status("GET /\(String(repeating: "a", count: 100))") == 414)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nX: \(String(repeating: "b", count: 300))") == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n") == 431)
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\n\r\n") == nil)
        // Blank lines before a request count toward the head, so they cannot go on forever.
        #expect(status(String(repeating: "\r\n", count: 200)) == 431)
    }

    @Test func headersAreFoundIgnoringCase() throws {
        guard case .head(let head, _) = parseWhole("GET / HTTP/1.1\r\nHost: a\r\nAccept-Encoding:  gzip, br \r\nX-Two: 1\r\nx-two: 2\r\n\r\n") else {
            Issue.record("not parsed")
            return
        }
        #expect(head.headers["accept-encoding"] == "gzip, br")
        #expect(head.headers["ACCEPT-ENCODING"] == "gzip, br")
        #expect(head.headers.values("X-Two") == ["1", "2"])
        #expect(head.headers.contains("accept-encoding", token: "BR"))
        #expect(head.headers["missing"] == nil)
    }

    @Test func expectContinueIsNoticed() {
        guard case .head(let head, _) = parseWhole("PUT /x HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n") else {
            Issue.record("not parsed")
            return
        }
        #expect(head.expectsContinue)
    }

    /// The parser writes each head where the last one was; a request that still
    /// holds the last one keeps it whole, and a large head's storage is given back.
    @Test func aHeadStillHeldIsNotOverwrittenByTheNext() throws {
        var parser = HTTPRequestParser()
        func next(_ raw: String) throws -> HTTPRequestHead {
            defer { parser.reset() }
            guard case .head(let head, _) = Array(raw.utf8).withUnsafeBytes({ parser.parse($0) }) else {
                throw HTTPParseError.malformed("no head: \(raw)")
            }
            return head
        }
        let first = try next("GET /a HTTP/1.1\r\nHost: one\r\nX-First: 1\r\n\r\n")
        let second = try next("GET /b HTTP/1.1\r\nHost: two\r\nX-Second: 2\r\n\r\n")
        #expect(first.headers["host"] == "one" && first.headers["x-first"] == "1" && first.headers["x-second"] == nil)
        #expect(second.headers["host"] == "two" && second.headers["x-second"] == "2")
        let large = try next("GET /c HTTP/1.1\r\nHost: three\r\nX-Large: \(String(repeating: "l", count: 8_000))\r\n\r\n")
        parser.shrink()
        let small = try next("GET /d HTTP/1.1\r\nHost: four\r\n\r\n")
        #expect(large.headers["x-large"]?.count == 8_000 && large.headers["host"] == "three")
        #expect(small.headers["host"] == "four" && small.headers.count == 1 && small.path == "/d")
    }

    private func parseWhole(_ raw: String) -> HTTPRequestParser.Result {
        var parser = HTTPRequestParser()
        return Array(raw.utf8).withUnsafeBytes { parser.parse($0) }
    }

    private func check(_ result: HTTPRequestParser.Result, _ expected: Expected, _ raw: String) {
        switch (result, expected) {
        case (.head(let head, _), .head(let method, let path, let query, let keepAlive, let framing)):
            #expect(head.method == method, "\(raw)")
            #expect(head.path == path, "\(raw)")
            #expect(head.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&") == query, "\(raw)")
            #expect(head.keepAlive == keepAlive, "\(raw)")
            #expect(head.bodyFraming == framing, "\(raw)")
        case (.failure(let error), .failure(let status)):
            #expect(error.status.code == status, "\(raw)")
        default:
            Issue.record("\(raw.debugDescription): got \(result), expected \(expected)")
        }
    }
}
