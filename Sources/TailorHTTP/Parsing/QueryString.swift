/// One `name=value` pair of a query, percent-decoded.
public struct QueryItem: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The query of a request target as form-encoded pairs (`a=1&b=x+y`).
enum QueryString {
    /// The decoded pairs in order, or nil when any part has a malformed escape,
    /// decodes to bytes that are not UTF-8, or holds a NUL: such a query is
    /// refused whole, since dropping the bad part would change what was asked
    /// (a search for `%zz` would become a search for everything).
    static func items(_ raw: ArraySlice<UInt8>) -> [QueryItem]? {
        var items: [QueryItem] = []
        for part in raw.split(separator: UInt8(ascii: "&")) {
            let pair = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(pair[0], plusIsSpace: true),
                  let value = pair.count > 1 ? PercentDecoding.decode(pair[1], plusIsSpace: true) : "",
                  !name.utf8.contains(0), !value.utf8.contains(0) else { return nil }
            if !name.isEmpty { items.append(QueryItem(name: name, value: value)) }
        }
        return items
    }
}
