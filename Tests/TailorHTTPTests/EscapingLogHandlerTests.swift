import Logging
import Synchronization
import TailorHTTP
import Testing

/// A log entry stays one line whatever a client put in it.
@Suite struct EscapingLogHandlerTests {
    /// Keeps what it is given to write.
    private struct Recording: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.append("\(event.message) \(event.metadata?["name"].map { "\($0)" } ?? "")")
        }
    }

    private final class Lines: Sendable {
        private let written = Mutex<[String]>([])
        func append(_ line: String) { written.withLock { $0.append(line) } }
        var all: [String] { written.withLock { $0 } }
    }

    @Test func controlCharactersInMessagesAndMetadataAreEscaped() {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in EscapingLogHandler(Recording(lines: lines)) }
        let forged = "pat\n2099-01-01T00:00:00+0000 critical: forged\r\u{1B}[31m\u{2028}"
        logger.notice("a sign-in for \(forged) failed", metadata: ["name": "\(forged)"])
        logger.notice("plain text, and é and 🇩🇪 stay as they are")
        let escaped = #"pat\n2099-01-01T00:00:00+0000 critical: forged\r\u{1b}[31m\u{2028}"#
        #expect(lines.all == ["a sign-in for \(escaped) failed \(escaped)", "plain text, and é and 🇩🇪 stay as they are "])
    }
}
