import Foundation
import TailorHTTP
import TailorTestSupport
import Testing

/// Files from the public folder: content types, ETags, gzip, and no way out.
@Suite struct StaticFileTests {
    @Test func rootServesIndexWithItsContentType() throws {
        let server = try TestServer()
        let response = try server.get("/")
        #expect(response.status == 200)
        #expect(response.header("content-type") == "text/html; charset=utf-8")
        #expect(response.text.contains("<title>Tailor</title>"))
    }

    @Test func etagGives304WithNoBody() throws {
        let server = try TestServer()
        try server.write(Array("body { color: red }".utf8), to: "style.css")
        let first = try server.get("/style.css")
        #expect(first.header("content-type") == "text/css; charset=utf-8")
        let etag = try #require(first.header("etag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let again = try server.get("/style.css", headers: ["If-None-Match: \(etag)"])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("etag") == etag)
        let other = try server.get("/style.css", headers: [#"If-None-Match: "something-else""#])
        #expect(other.status == 200)
    }

    @Test func largeTextIsGzippedWhenAcceptedAndRoundTrips() throws {
        let server = try TestServer()
        let text = Array(String(repeating: "{\"tailor\": \"made view models\"}\n", count: 200).utf8)
        try server.write(text, to: "data.json")
        let zipped = try server.get("/data.json", headers: ["Accept-Encoding: br, gzip;q=0.8"])
        #expect(zipped.header("content-encoding") == "gzip")
        #expect(zipped.header("vary") == "Accept-Encoding")
        #expect(zipped.body.count < text.count)
        #expect(Gzip.decompress(zipped.body) == text)

        let plain = try server.get("/data.json")
        #expect(plain.header("content-encoding") == nil)
        #expect(plain.body == text)
        #expect(plain.header("etag") != zipped.header("etag"))

        let refused = try server.get("/data.json", headers: ["Accept-Encoding: gzip;q=0"])
        #expect(refused.header("content-encoding") == nil)
    }

    @Test func smallFilesAreNotGzipped() throws {
        let server = try TestServer()
        try server.write(Array("tiny".utf8), to: "tiny.txt")
        let response = try server.get("/tiny.txt", headers: ["Accept-Encoding: gzip"])
        #expect(response.header("content-encoding") == nil)
        #expect(response.text == "tiny")
    }

    /// Looked at on every request (revalidated after 0 s), a changed file is served at once.
    @Test func aChangedFileIsServedAnew() throws {
        let server = try TestServer(revalidateFilesAfter: 0)
        try server.write(Array("one".utf8), to: "note.txt")
        #expect(try server.get("/note.txt").text == "one")
        try server.write(Array("two, longer".utf8), to: "note.txt")
        #expect(try server.get("/note.txt").text == "two, longer")
    }

    /// Within the revalidation time a kept file is served without a look at
    /// the disk: even a file removed meanwhile is still served, as it was.
    @Test func aKeptFileIsNotLookedAtAgainWithinTheRevalidationTime() throws {
        let server = try TestServer(revalidateFilesAfter: 3600)
        try server.write(Array("one".utf8), to: "note.txt")
        #expect(try server.get("/note.txt").text == "one")
        try FileManager.default.removeItem(at: server.publicFolder.appendingPathComponent("note.txt"))
        let again = try server.get("/note.txt")
        #expect(again.status == 200 && again.text == "one")
    }

    @Test(arguments: [
        "/../etc/passwd",
        "/%2e%2e/etc/passwd",
        "/%2E%2E/%2e%2e/etc/passwd",
        "/a/../../etc/passwd",
        "/..%2fetc%2fpasswd",
        "/.hidden",
        "/escape/passwd",
        "/escape-file",
        "/missing.html",
    ])
    func pathsOutsideTheFolderAreNotFound(path: String) throws {
        let server = try TestServer()
        try server.write(Array("secret".utf8), to: ".hidden")
        let outside = server.publicFolder.deletingLastPathComponent().appendingPathComponent("tailor-outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        try "outside".write(to: outside.appendingPathComponent("passwd"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: server.publicFolder.appendingPathComponent("escape"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(
            at: server.publicFolder.appendingPathComponent("escape-file"),
            withDestinationURL: outside.appendingPathComponent("passwd"))
        let response = try server.get(path)
        #expect(response.status == 404, "\(path)")
        #expect(!response.text.contains("outside"))
        #expect(!response.text.contains("root:"))
    }

    @Test func aNulByteInThePathIs400() throws {
        let server = try TestServer()
        #expect(try server.get("/index.html%00.png").status == 400)
    }

    @Test func symlinksInsideTheFolderAreServed() throws {
        let server = try TestServer()
        try server.write(Array("inside".utf8), to: "docs/real.txt")
        try FileManager.default.createSymbolicLink(
            at: server.publicFolder.appendingPathComponent("link.txt"),
            withDestinationURL: server.publicFolder.appendingPathComponent("docs/real.txt"))
        #expect(try server.get("/link.txt").text == "inside")
        #expect(try server.get("/docs/real.txt").text == "inside")
    }

    @Test func postToAFileIs405() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send("POST /index.html HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 405)
        #expect(response.header("allow") == "GET, HEAD")
    }

    /// A large file is sent from disk: it arrives whole, keeps its ETag, and
    /// clients that do not read it hold no copy of it in the server.
    @Test func aLargeFileIsSentFromDiskNotMemory() throws {
        let server = try TestServer()
        let size = 24 << 20
        let contents = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        try server.write(contents, to: "big.bin")
        let whole = try server.client(timeout: 20)
        try whole.send("GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try whole.readResponse()
        #expect(response.status == 200)
        #expect(response.body == contents)
        let etag = try #require(response.header("etag"))
        #expect(try server.get("/big.bin", headers: ["If-None-Match: \(etag)"]).status == 304)
        // The same connection goes on after the file.
        try whole.send("GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try whole.readResponse().body.count == size)

        let before = Self.residentBytes()
        let stalled = try (0..<12).map { _ in try server.client(receiveBuffer: 4096) }
        for client in stalled { try client.send("GET /big.bin HTTP/1.1\r\nHost: t\r\n\r\n") }
        // The server writes as far as each socket takes: once every client has bytes waiting, memory is read.
        #expect(eventually(timeout: 30) { stalled.allSatisfy { Self.bytesWaiting(on: $0.fd) > 0 } })
        // Twelve copies read into memory would be 288 MiB; other suites run beside this one.
        #expect(Self.residentBytes() - before < 96 << 20)
        _ = stalled
    }

    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// Bytes received on `socket` and not yet read.
    private static func bytesWaiting(on socket: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(socket, UInt(FIONREAD), &count) == 0 ? count : 0
    }
}
