@testable import TailorHTTP
import Testing

@Suite struct TrimmingTests {
    @Test func plainTextComesBackAsItIs() {
        #expect("Bearer abc.DEF-123".trimmed == "Bearer abc.DEF-123")
        #expect("x".trimmed == "x")
        #expect("".trimmed == "")
    }

    @Test func asciiWhiteSpaceAtEitherEndGoes() {
        #expect("  token\t".trimmed == "token")
        #expect("\r\nhello world\r\n".trimmed == "hello world")
        #expect(" \t\n ".trimmed == "")
    }

    @Test func unicodeWhiteSpaceGoesToo() {
        // No-break space, ideographic space, line separator.
        #expect("\u{00A0}hi\u{3000}".trimmed == "hi")
        #expect("hi\u{2028}".trimmed == "hi")
        #expect("\u{00A0}".trimmed == "")
    }

    @Test func textThatEndsOutsideASCIIIsTrimmedByCharacters() {
        #expect("café ".trimmed == "café")
        #expect(" e\u{0301}".trimmed == "e\u{0301}")
        #expect("日本".trimmed == "日本")
    }

    @Test func aSliceIsTrimmedLikeAString() {
        let header = "gzip; q=1.0"
        let parts = header.split(separator: ";")
        #expect(parts[1].trimmed == "q=1.0")
        #expect(parts[0].trimmed == "gzip")
    }
}
