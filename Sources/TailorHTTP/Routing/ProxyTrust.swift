import TailorLoop

/// Which peers are proxies whose `X-Forwarded-For` and `X-Forwarded-Proto`
/// are believed (`--trust-proxy`). Behind them, every connection comes from
/// the proxy; the client's own address, for logs and rate limits, is in the
/// header, and so is whether the client spoke HTTPS (for the cookies'
/// `Secure`). From any other peer the headers are ignored: a client could
/// write anything there.
public struct ProxyTrust: Sendable {
    public let proxies: [AddressRange]

    public init(proxies: [AddressRange] = []) {
        self.proxies = proxies
    }

    private func isProxy(_ address: PeerAddress) -> Bool {
        proxies.contains { $0.contains(address) }
    }

    /// The client as far as can be believed: the address, and whether it came over HTTPS.
    public func client(of request: HTTPRequest) -> (address: PeerAddress?, secure: Bool) {
        guard let peer = request.peer, isProxy(peer) else { return (request.peer, false) }
        // The rightmost address that is not itself a trusted proxy: what the
        // proxies nearest to this server saw; left of it, the client wrote.
        var address = peer
        let hops = request.headers.values("x-forwarded-for").flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            guard let hopAddress = PeerAddress(text: hop.trimmed) else { break }
            address = hopAddress
            if !isProxy(hopAddress) { break }
        }
        let secure = request.headers["x-forwarded-proto"].map { $0.trimmed.lowercased() == "https" } ?? false
        return (address, secure)
    }
}
