import Synchronization

/// The server under load: host and port from `--url`, and the local addresses
/// to connect from.
final class LoadTarget: Sendable {
    let host: String
    let port: Int
    /// Connections per source address before the next one is used: below the
    /// server's default limit of connections per client address (256).
    static let connectionsPerSource = 200
    private let opened = Atomic<Int>(0)

    /// Parses `http://HOST:PORT` (a path after it is ignored).
    init?(url: String) {
        guard url.hasPrefix("http://") else { return nil }
        let rest = url.dropFirst("http://".count).prefix { $0 != "/" }
        let parts = rest.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (1...65535).contains(port) else { return nil }
        host = parts[0] == "localhost" ? "127.0.0.1" : String(parts[0])
        self.port = port
    }

    /// On loopback, past each `connectionsPerSource` connections the next source
    /// address in 127.0.0.0/8; elsewhere the system's choice.
    func nextSourceAddress() -> String? {
        guard host.hasPrefix("127.") else { return nil }
        return Self.loopbackSource(forConnection: opened.add(1, ordering: .relaxed).newValue - 1)
    }

    /// The source address of the `index`th connection to a loopback server:
    /// 127.0.0.1 for the first `connectionsPerSource`, then 127.0.0.2, … and on
    /// into 127.0.1.1, so that no address passes the server's per-address limit.
    static func loopbackSource(forConnection index: Int) -> String? {
        let block = index / connectionsPerSource
        return block == 0 ? nil : "127.0.\(block / 250).\(1 + block % 250)"
    }
}
