import TailorLoop

/// Which peers are proxies whose `X-Forwarded-For` and `X-Forwarded-Proto`
/// are believed (`--trust-proxy`). Behind them, every connection comes from
/// the proxy; the client's own address, for logs and rate limits, is in the
/// header, and so is whether the client spoke HTTPS (for the cookies'
/// `Secure`). From any other peer the headers are ignored: a client could
/// write anything there.
public struct ProxyTrust: Sendable {
    public let proxies: Set<PeerAddress>

    public init(proxies: Set<PeerAddress> = []) {
        self.proxies = proxies
    }

    /// The client as far as can be believed: the address, and whether it came over HTTPS.
    public func client(of request: HTTPRequest) -> (address: PeerAddress?, secure: Bool) {
        guard let peer = request.peer, proxies.contains(peer) else { return (request.peer, false) }
        // The rightmost address that is not itself a trusted proxy: what the
        // proxies nearest to this server saw; left of it, the client wrote.
        var address = peer
        let hops = request.headers.values("x-forwarded-for").flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            guard let hopAddress = PeerAddress(text: String(hop.trimmingSpaces)) else { break }
            address = hopAddress
            if !proxies.contains(hopAddress) { break }
        }
        let secure = request.headers["x-forwarded-proto"].map { $0.trimmingSpaces.lowercased() == "https" } ?? false
        return (address, secure)
    }
}

private extension StringProtocol {
    var trimmingSpaces: Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = text.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return text[first...last]
    }
}
