import Foundation
import TailorApp
import TailorHTTP
import Testing

/// The fields browsers act on, read off real answers: the page and its files
/// carry the content security policy and `no-cache`; API answers, errors and
/// 304s `private, no-cache`; event streams and tokens `no-store`; every one
/// `nosniff`.
@Suite struct BrowserFieldsTests {
    /// An application that serves a page of two files besides its API.
    private static func appWithPage(configure: (inout TailorConfiguration) -> Void = { _ in }) throws -> TestApp {
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: page, withIntermediateDirectories: true)
        try Data("<!doctype html><title>Tailor</title>".utf8).write(to: page.appendingPathComponent("index.html"))
        try Data("export const answer = 42;\n".utf8).write(to: page.appendingPathComponent("app.js"))
        return try TestApp { configuration in
            configuration.publicFolder = page.path
            configure(&configuration)
        }
    }

    private static func expectPageFields(_ response: TestResponse, _ what: String) {
        let policy = response.header("content-security-policy") ?? ""
        for directive in ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "worker-src 'self'", "manifest-src 'self'",
                          "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"] {
            #expect(policy.contains(directive), "\(what): \(directive) missing from \(policy)")
        }
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(what): \(policy)")
        #expect(response.header("x-content-type-options") == "nosniff", "\(what)")
        #expect(response.header("referrer-policy") == "same-origin", "\(what)")
        #expect(response.header("x-frame-options") == "DENY", "\(what)")
        #expect(response.header("permissions-policy")?.contains("camera=()") == true, "\(what)")
        #expect(response.header("cache-control") == "no-cache", "\(what)")
    }

    @Test func thePageAndItsFilesCarryThePolicyAndAreRevalidated() throws {
        let app = try Self.appWithPage()
        let client = try app.client()
        let page = try client.get("/")
        #expect(page.status == 200)
        Self.expectPageFields(page, "/")
        let file = try client.get("/app.js")
        #expect(file.status == 200)
        Self.expectPageFields(file, "/app.js")
        let unchanged = try client.get("/app.js", headers: ["If-None-Match: \(try #require(file.header("etag")))"])
        #expect(unchanged.status == 304)
        Self.expectPageFields(unchanged, "/app.js, 304")
    }

    @Test func apiAnswersErrorsAnd304sArePrivate() throws {
        let app = try Self.appWithPage()
        let alice = try app.user("alice")
        let chats = try alice.get("/api/chats")
        #expect(chats.status == 200)
        let unchanged = try alice.get("/api/chats", headers: ["If-None-Match: \(try #require(chats.header("etag")))"])
        #expect(unchanged.status == 304)
        let missing = try alice.get("/api/chats/999999")
        #expect(missing.status == 404)
        let anonymous = try app.client().get("/api/chats")
        #expect(anonymous.status == 401)
        let missingFile = try app.client().get("/no-such-file.js")
        #expect(missingFile.status == 404)
        for (what, response) in [("chats", chats), ("304", unchanged), ("404", missing), ("401", anonymous), ("missing file", missingFile)] {
            #expect(response.header("cache-control") == "private, no-cache", "\(what)")
            #expect(response.header("x-content-type-options") == "nosniff", "\(what)")
            #expect(response.header("content-security-policy") == nil, "\(what)")
        }
    }

    @Test func streamsAndTokensAreNeverStored() throws {
        let app = try Self.appWithPage()
        let signUp = try app.client().send("POST", "/api/users", json: #"{"name":"carol"}"#)
        #expect(signUp.status == 201)
        #expect(signUp.header("cache-control") == "no-store")
        let stream = try SSEClient(port: app.port, token: signUp.json["token"] as? String, topics: "badge")
        #expect(stream.response.status == 200)
        #expect(stream.response.header("cache-control") == "no-store")
        #expect(stream.response.header("x-content-type-options") == "nosniff")
        #expect(try stream.next().name == "badge")
    }

    @Test func anOperatorExtendsThePolicy() throws {
        let fields = try BrowserFields(extraPolicy: "img-src 'self' https://images.example.com; report-to csp")
        let app = try Self.appWithPage { $0.server.browserFields = fields }
        let policy = try #require(try app.client().get("/").header("content-security-policy"))
        #expect(policy.contains("img-src 'self' https://images.example.com"))
        #expect(!policy.contains("img-src 'self';"))
        #expect(policy.hasSuffix("; report-to csp"))
        #expect(policy.contains("frame-ancestors 'none'"))
    }

    @Test(arguments: ["img-src 'self', https://x.example", "img-src 'self'\r\nX-Evil: 1", "'self'", "9src x"])
    func aPolicyThatIsNoDirectiveIsRefused(extra: String) {
        #expect(throws: BrowserFields.InvalidPolicy.self) { try BrowserFields(extraPolicy: extra) }
    }
}
