import Glibc

/// A client's IP address as 16 bytes (IPv4 as an IPv4-mapped IPv6 address),
/// for counting connections per client.
public struct PeerAddress: Hashable, Sendable {
    public var high: UInt64
    public var low: UInt64

    init(_ bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        withUnsafeBytes(of: bytes) { raw in
            for index in 0..<8 { high = high << 8 | UInt64(raw[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(raw[index]) }
        }
        self.high = high
        self.low = low
    }

    /// An address written as `127.0.0.1` or `::1`; nil for anything else.
    public init?(text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4) { Array($0) }
            self.init((0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, bytes[0], bytes[1], bytes[2], bytes[3]))
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let b = withUnsafeBytes(of: v6) { Array($0) }
            self.init((b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        } else {
            return nil
        }
    }

    /// What limits per client count by: an IPv4 address itself, and for IPv6
    /// its /64 network, which one subscriber is usually given whole (RFC
    /// 6177), so that rotating addresses inside it counts as one client.
    public var network: PeerAddress {
        var network = self
        if !isIPv4 { network.low = 0 }
        return network
    }

    /// Whether this is an IPv4 address (held as `::ffff:a.b.c.d`).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The address as written in logs: `127.0.0.1`, or eight groups of hex digits for IPv6.
    public var text: String {
        if isIPv4 {
            return (0..<4).map { String((low >> (8 * (3 - $0))) & 0xFF) }.joined(separator: ".")
        }
        return [high, low].flatMap { half in (0..<4).map { String((half >> (16 * (3 - $0))) & 0xFFFF, radix: 16) } }.joined(separator: ":")
    }
}
