@testable import TailorHTTP
import Testing

@Suite struct ContentTests {
    @Test func gzipRoundTrips() {
        let text = Array(String(repeating: "tailor-made view models ", count: 100).utf8)
        let compressed = Gzip.compress(text)
        #expect(compressed.count < text.count)
        #expect(compressed.prefix(2) == [0x1f, 0x8b])
        #expect(Gzip.decompress(compressed) == text)
        #expect(Gzip.decompress([1, 2, 3]) == nil)
    }

    @Test func etagsAreStableAndCompareWeakly() {
        let one = Array("one".utf8).withUnsafeBytes { ETag.strong(for: $0) }
        #expect(one == Array("one".utf8).withUnsafeBytes { ETag.strong(for: $0) })
        #expect(one != Array("two".utf8).withUnsafeBytes { ETag.strong(for: $0) })
        // As a request's field is read: its bytes in place.
        func ifNoneMatch(_ field: String, matches tag: String) -> Bool { ETag.ifNoneMatch(Array(field.utf8)[...], matches: tag) }
        #expect(ifNoneMatch(one, matches: one))
        #expect(ifNoneMatch(#""x", W/\#(one)"#, matches: one))
        #expect(ifNoneMatch("*", matches: one))
        #expect(!ifNoneMatch(#""x""#, matches: one))
        #expect(ETag.strong(hash: 0x1f) == #""000000000000001f""#)
        #expect(ETag.strong(hash: 0x0123_4567_89ab_cdef, suffix: "-gzip") == #""0123456789abcdef-gzip""#)
    }

    @Test func acceptEncodingIsRead() {
        #expect(AcceptEncoding.allowsGzip("gzip"))
        #expect(AcceptEncoding.allowsGzip("br, GZIP;q=0.5"))
        #expect(AcceptEncoding.allowsGzip("*"))
        #expect(!AcceptEncoding.allowsGzip("gzip;q=0"))
        #expect(!AcceptEncoding.allowsGzip("br"))
        #expect(!AcceptEncoding.allowsGzip(nil))
        #expect(!AcceptEncoding.allowsGzip("*;q=0, br"))
    }

    @Test func cachedRepresentationNegotiates() {
        let json = Array(("[" + (0..<200).map { "{\"id\": \"\($0)\"}" }.joined(separator: ",") + "]").utf8)
        let representation = CachedRepresentation(json, contentType: HTTPResponse.jsonContentType)
        let plain = representation.response(to: HTTPRequest(method: .get, path: "/"))
        #expect(plain.status == .ok)
        #expect(plain.body.array == json)
        let asksForGzip = HTTPRequest(method: .get, path: "/", headers: [("Accept-Encoding", "gzip")])
        #expect(representation.compressesFirst(for: asksForGzip))
        #expect(!representation.compressesFirst(for: HTTPRequest(method: .get, path: "/")))
        let zipped = representation.response(to: asksForGzip)
        #expect(!representation.compressesFirst(for: asksForGzip), "made once, by the first request that asked")
        #expect(!CachedRepresentation(Array("{}".utf8), contentType: HTTPResponse.jsonContentType).compressesFirst(for: asksForGzip),
                "too small to compress")
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(Gzip.decompress(zipped.body.array) == json)
        let etag = zipped.header("ETag")!
        let revalidated = representation.response(to: HTTPRequest(
            method: .get, path: "/", headers: [("Accept-Encoding", "gzip"), ("If-None-Match", etag)]))
        #expect(revalidated.status == .notModified)
        #expect(revalidated.body.count == 0)
        // The gzip tag does not validate the identity variant.
        let mismatched = representation.response(to: HTTPRequest(method: .get, path: "/", headers: [("If-None-Match", etag)]))
        #expect(mismatched.status == .ok)
    }

    @Test func eachAnswerOfARepresentationCarriesItsFields() {
        let json = Array(("[" + (0..<200).map { "{\"id\": \"\($0)\"}" }.joined(separator: ",") + "]").utf8)
        let representation = CachedRepresentation(json, contentType: HTTPResponse.jsonContentType)
        let names = { (response: HTTPResponse) in response.headers.map(\.name) }
        let plain = representation.response(to: HTTPRequest(method: .get, path: "/"))
        #expect(names(plain) == ["Content-Type", "ETag", "Vary"])
        #expect(plain.header("ETag") == representation.identityETag)
        #expect(plain.header("Vary") == "Accept-Encoding")
        let zipped = representation.response(to: HTTPRequest(method: .get, path: "/", headers: [("Accept-Encoding", "gzip")]))
        #expect(names(zipped) == ["Content-Type", "Content-Encoding", "ETag", "Vary"])
        #expect(zipped.header("ETag") == representation.gzipETag)
        let unchanged = representation.response(to: HTTPRequest(method: .get, path: "/", headers: [("If-None-Match", representation.identityETag)]))
        #expect(unchanged.status == .notModified)
        #expect(names(unchanged) == ["ETag", "Vary"])
        // An image is never sent gzipped, so its answers do not vary by Accept-Encoding.
        let image = CachedRepresentation(Array(repeating: 7, count: 2_000), contentType: "image/png")
        let picture = image.response(to: HTTPRequest(method: .get, path: "/", headers: [("Accept-Encoding", "gzip")]))
        #expect(names(picture) == ["Content-Type", "ETag"])
        #expect(picture.header("Content-Type") == "image/png")
    }

    @Test func canonicalPathsStayInside() {
        #expect(StaticFiles.canonicalPath("/") == "/index.html")
        #expect(StaticFiles.canonicalPath("/a/b.css") == "/a/b.css")
        #expect(StaticFiles.canonicalPath("/docs/") == "/docs/index.html")
        #expect(StaticFiles.canonicalPath("//a//b") == "/a/b")
        #expect(StaticFiles.canonicalPath("/a//b/") == "/a/b/index.html")
        #expect(StaticFiles.canonicalPath("/a/b..c") == "/a/b..c")
        #expect(StaticFiles.canonicalPath("/../x") == nil)
        #expect(StaticFiles.canonicalPath("/a/../../x") == nil)
        #expect(StaticFiles.canonicalPath("/.git/config") == nil)
        #expect(StaticFiles.canonicalPath("//.git") == nil)
        #expect(StaticFiles.canonicalPath("/a\\..\\b") == nil)
        #expect(StaticFiles.canonicalPath("/a\u{0}b") == nil)
        #expect(StaticFiles.canonicalPath("relative") == nil)
        #expect(StaticFiles.canonicalPath("") == nil)
    }

    @Test func jsonTextEscapes() {
        #expect(JSONText.quoted("a\"b\\c\n\u{01}é") == #""a\"b\\c\n\u0001é""#)
    }

    @Test func httpDateIsIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
