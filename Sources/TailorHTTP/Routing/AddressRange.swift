import TailorLoop

/// A block of addresses, written as in CIDR (`10.0.0.0/8`, `fd00::/8`) or as
/// one address (a block of one): the proxies `--trust-proxy` believes, which
/// on a container platform are pods whose addresses change, within a block.
public struct AddressRange: Hashable, Sendable {
    /// The block's first address: the address given, its host bits cleared.
    public let network: PeerAddress
    /// Leading bits an address shares with `network` to lie in the block, of
    /// 128: an IPv4 block's count from the 96th (`PeerAddress` maps IPv4 into IPv6).
    public let prefixLength: Int

    public init?(text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = PeerAddress(text: String(parts[0])) else { return nil }
        let offset = address.isIPv4 ? 96 : 0
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...(128 - offset)).contains(length) else { return nil }
            prefixLength = offset + length
        } else {
            prefixLength = 128
        }
        network = Self.masked(address, prefixLength)
    }

    public init(_ address: PeerAddress) {
        network = address
        prefixLength = 128
    }

    public func contains(_ address: PeerAddress) -> Bool {
        Self.masked(address, prefixLength) == network
    }

    private static func masked(_ address: PeerAddress, _ length: Int) -> PeerAddress {
        var masked = address
        masked.high &= mask(bits: min(length, 64))
        masked.low &= mask(bits: max(length - 64, 0))
        return masked
    }

    /// A word whose `bits` leading bits are set.
    private static func mask(bits: Int) -> UInt64 {
        bits == 0 ? 0 : ~UInt64(0) << UInt64(64 - bits)
    }
}
