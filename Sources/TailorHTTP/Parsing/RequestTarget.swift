/// The request target split into a decoded path and a raw query (RFC 9112 §3.2).
struct RequestTarget {
    var path: String
    var query: String

    static func parse(_ bytes: ArraySlice<UInt8>, method: HTTPMethod) -> Result<RequestTarget, HTTPParseError> {
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.malformed("The request target holds a byte that must be percent-encoded."))
        }
        var target = bytes
        if target.first == UInt8(ascii: "*") && target.count == 1 {
            guard method == .options else { return .failure(.malformed("The target * is for OPTIONS only.")) }
            return .success(RequestTarget(path: "*", query: ""))
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
        let query = queryStart.map { String(decoding: target[($0 + 1)...], as: UTF8.self) } ?? ""
        guard let path = PercentDecoding.decode(rawPath, plusIsSpace: false), !path.utf8.contains(0) else {
            return .failure(.malformed("The path has a malformed percent-escape, a NUL byte, or invalid UTF-8."))
        }
        return .success(RequestTarget(path: path, query: query))
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
