/// A subscription's endpoint: the push service's URL that the server posts
/// pushes to. A browser names it, so a user could name any address; only
/// `https` URLs on the hosts of known push services are taken, so that no user
/// can make the server post to an address inside its own network, and only
/// on the default HTTPS port, where those services answer: any other port of
/// theirs would at best never answer. An operator's own push service may
/// listen elsewhere: an allowed host written with a port (`127.0.0.1:8443`)
/// takes endpoints on that port only.
public struct PushEndpoint: Sendable, Equatable {
    public let url: String
    /// `https://host[:port]`: the audience of the VAPID token.
    public let origin: String
    /// The push service's host, lower case: pushes take turns by it.
    public let host: String

    /// The most bytes an endpoint may have; the browsers' are a few hundred.
    public static let maxBytes = 1024

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case tooLong, notHTTPS, malformed, userInfo, hostNotAllowed(String)

        public var description: String {
            switch self {
            case .tooLong: "an endpoint has at most \(PushEndpoint.maxBytes) bytes"
            case .notHTTPS: "an endpoint is an https URL"
            case .malformed: "the endpoint is not a URL"
            case .userInfo: "an endpoint names no user or password"
            case .hostNotAllowed(let host): "\(host) is not a push service this server posts to (only their default HTTPS port)"
            }
        }
    }

    /// The push services of the browsers; a host that starts with a dot
    /// stands for its subdomains.
    public static let browserServices = ["fcm.googleapis.com", "updates.push.services.mozilla.com", ".push.apple.com",
                                         ".notify.windows.com"]

    /// `url` when it is an https URL whose host `allowedHosts` names.
    public init(_ url: String, allowedHosts: [String]) throws(Refusal) {
        guard url.utf8.count <= Self.maxBytes else { throw .tooLong }
        guard url.hasPrefix("https://") else { throw .notHTTPS }
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "#" && $0 != "\\" }) else { throw .malformed }
        let afterScheme = url.dropFirst("https://".count)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        guard !authority.contains("@") else { throw .userInfo }
        var host = Substring(authority)
        var port = 443
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let digits = authority[authority.index(after: colon)...]
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), (1...65535).contains(number) else { throw .malformed }
            host = authority[..<colon]
            port = number
        }
        guard !host.isEmpty else { throw .malformed }
        let name = host.lowercased()
        let allowed = allowedHosts.contains { entry in
            let (allowedName, allowedPort) = Self.hostAndPort(entry.lowercased())
            guard port == allowedPort else { return false }
            return allowedName.hasPrefix(".") ? name.hasSuffix(allowedName) && name.count > allowedName.count : name == allowedName
        }
        guard allowed else { throw .hostNotAllowed(port == 443 ? name : "\(name):\(port)") }
        self.url = url
        origin = "https://" + authority.lowercased()
        self.host = name
    }

    /// An allowed host entry's name and port: 443 unless it names one.
    private static func hostAndPort(_ entry: String) -> (name: String, port: Int) {
        guard let colon = entry.lastIndex(of: ":"), !entry.hasSuffix("]"), let port = Int(entry[entry.index(after: colon)...]) else {
            return (entry, 443)
        }
        return (String(entry[..<colon]), port)
    }
}
