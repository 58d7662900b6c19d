/// Where the data lives: a SQLite file on this machine, or a PostgreSQL
/// database that several servers can share.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite file, created with its folder; `:memory:` for a throwaway one.
    case sqlite(path: String)
    /// A libpq connection URI, `postgres://` or `postgresql://`.
    case postgres(url: String)

    /// A `postgres://` or `postgresql://` URL is a PostgreSQL database;
    /// anything else is a SQLite path.
    public init(_ text: String) {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// Said in logs and errors: a password in the URL is masked.
    public var description: String {
        switch self {
        case .sqlite(let path):
            return path
        case .postgres(let url):
            return Self.masked(url)
        }
    }

    /// The URL with the password of `user:password@` replaced by `***`, and a
    /// `password=` query parameter likewise.
    static func masked(_ url: String) -> String {
        guard let colonOfScheme = url.firstIndex(of: ":"), url[colonOfScheme...].hasPrefix("://") else { return url }
        var text = url
        let authorityStart = text.index(colonOfScheme, offsetBy: 3)
        let authorityEnd = text[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? text.endIndex
        if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@"),
           let colon = text[authorityStart..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        if let query = text.firstIndex(of: "?") {
            let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
                parameter.hasPrefix("password=") ? "password=***" : String(parameter)
            }
            text = String(text[...query]) + parameters.joined(separator: "&")
        }
        return text
    }
}
