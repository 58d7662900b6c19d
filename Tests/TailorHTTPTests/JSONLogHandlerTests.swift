import Foundation
import Logging
import Synchronization
import TailorHTTP
import Testing

/// `--log-format json`: each entry one JSON object on one line.
@Suite struct JSONLogHandlerTests {
    private final class Lines: Sendable {
        private let written = Mutex<[[UInt8]]>([])
        func append(_ line: [UInt8]) { written.withLock { $0.append(line) } }
        var all: [[UInt8]] { written.withLock { $0 } }
    }

    @Test func eachEntryIsOneObjectOnOneLine() throws {
        let lines = Lines()
        var logger = Logger(label: "tailor") { label in JSONLogHandler(label: label) { lines.append($0) } }
        logger[metadataKey: "server"] = "a"
        logger.error("GET /x answered 503\nforged: line", metadata: ["request": "3f-1", "status": "503"])
        logger.debug("not at this level")
        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["level"] as? String == "error")
        #expect(object["logger"] as? String == "tailor")
        #expect(object["message"] as? String == "GET /x answered 503\nforged: line")
        #expect(object["metadata"] as? [String: String] == ["request": "3f-1", "status": "503", "server": "a"])
        let time = try #require(object["time"] as? String)
        #expect(time.count == 24 && time.hasSuffix("Z") && time.contains("."), "\(time)")
    }
}
