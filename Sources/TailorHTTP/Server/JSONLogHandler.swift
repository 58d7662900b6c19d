import Glibc
import Logging
import TailorLoop

/// A log handler that writes each entry as one JSON line (`--log-format
/// json`), for a collector that reads fields rather than text: `time` (UTC,
/// milliseconds), `level`, `logger` (the label), `message`, `source`, and the
/// entry's metadata under `metadata`, every value a string. Keys are sorted.
/// A line is one `write` to standard error, so lines of several threads
/// never interleave.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let output: @Sendable ([UInt8]) -> Void

    /// `output` takes each line, its newline included: standard error unless told.
    public init(label: String, output: @escaping @Sendable ([UInt8]) -> Void = JSONLogHandler.writeToStandardError) {
        self.label = label
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [(String, String)] = [
            ("level", event.level.rawValue), ("logger", label), ("message", event.message.description),
            ("source", event.source), ("time", ISOTime.text(Self.nowMilliseconds(), fraction: true)),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        var line: [UInt8] = [UInt8(ascii: "{")]
        if !merged.isEmpty { fields.append(("metadata", "")) }
        for (index, (key, value)) in fields.sorted(by: { $0.0 < $1.0 }).enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(key, to: &line)
            line.append(UInt8(ascii: ":"))
            if key == "metadata" {
                line.append(UInt8(ascii: "{"))
                for (place, (name, field)) in merged.sorted(by: { $0.key < $1.key }).enumerated() {
                    if place > 0 { line.append(UInt8(ascii: ",")) }
                    JSONText.appendQuoted(name, to: &line)
                    line.append(UInt8(ascii: ":"))
                    JSONText.appendQuoted(field.description, to: &line)
                }
                line.append(UInt8(ascii: "}"))
            } else {
                JSONText.appendQuoted(value, to: &line)
            }
        }
        line.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "\n")])
        output(line)
    }

    public static let writeToStandardError: @Sendable ([UInt8]) -> Void = { line in
        WholeWrite.write(line, to: STDERR_FILENO)
    }

    private static func nowMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
