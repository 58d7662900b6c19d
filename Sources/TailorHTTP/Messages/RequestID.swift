import Synchronization

/// Request ids, answered in `X-Request-ID` and written in log lines: the
/// client's own when it sent a usable one (a proxy's, to follow a request
/// across servers), else one made here.
public final class RequestIDs: Sendable {
    /// Longest id taken from a client.
    public static let maxLength = 128

    /// Random per process, so that ids of servers side by side differ. With the
    /// count after it an id stays within 15 bytes, which a Swift string holds
    /// without allocating.
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    public init() {
        let hex = String(UInt32.random(in: 0...0xFF_FFFF), radix: 16)
        prefix = String(repeating: "0", count: 6 - hex.count) + hex + "-"
    }

    /// The client's `X-Request-ID` when it is 1 to 128 of letters, digits and
    /// `-`, `_`, `.`, `:`; anything else is not echoed.
    public func given(in request: HTTPRequest) -> String? {
        guard let given = request.headers["x-request-id"], Self.isUsable(given) else { return nil }
        return given
    }

    /// A new id.
    public func next() -> String {
        prefix + String(counter.wrappingAdd(1, ordering: .relaxed).newValue, radix: 16)
    }

    static func isUsable(_ id: String) -> Bool {
        (1...maxLength).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
                true
            default:
                false
            }
        }
    }
}
