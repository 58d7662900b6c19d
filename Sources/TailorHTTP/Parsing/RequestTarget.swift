/// The request target split into a decoded path and decoded query pairs (RFC 9112 §3.2).
struct RequestTarget {
    var path: String
    var queryItems: [QueryItem]

    static func parse(_ bytes: ArraySlice<UInt8>, method: HTTPMethod) -> Result<RequestTarget, HTTPParseError> {
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.malformed("The request target holds a byte that must be percent-encoded."))
        }
        var target = bytes
        if target.first == UInt8(ascii: "*") && target.count == 1 {
            guard method == .options else { return .failure(.malformed("The target * is for OPTIONS only.")) }
            return .success(RequestTarget(path: "*", queryItems: []))
        }
        if target.first != UInt8(ascii: "/") {
            // absolute-form (RFC 9112 §3.2.2): keep the path, drop scheme and authority.
            guard let schemeEnd = Self.find(Array("://".utf8), in: target) else {
                return .failure(.malformed("The request target must start with / or be an absolute URI."))
            }
            let afterAuthority = target[(schemeEnd + 3)...]
            if let slash = afterAuthority.firstIndex(of: UInt8(ascii: "/")) {
                target = target[slash...]
            } else {
                target = ArraySlice(Array("/".utf8))
            }
        }
        let queryStart = target.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = target[..<(queryStart ?? target.endIndex)]
        guard let path = PercentDecoding.decode(rawPath, plusIsSpace: false), !path.utf8.contains(0) else {
            return .failure(.malformed("The path has a malformed percent-escape, a NUL byte, or invalid UTF-8."))
        }
        guard let queryItems = QueryString.items(queryStart.map { target[($0 + 1)...] } ?? []) else {
            return .failure(.malformed("The query has a malformed percent-escape, a NUL byte, or invalid UTF-8."))
        }
        return .success(RequestTarget(path: path, queryItems: queryItems))
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
