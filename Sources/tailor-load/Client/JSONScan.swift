import Glibc

/// Finds values in JSON bytes without decoding the whole document: the load
/// client reads thousands of events a second and needs one or two fields of each.
enum JSONScan {
    /// The first `"name":"value"` in `bytes`.
    static func string(named name: String, in bytes: ArraySlice<UInt8>) -> String? {
        let key = Array("\"\(name)\":\"".utf8)
        guard let start = find(key, in: bytes) else { return nil }
        let valueStart = start + key.count
        guard let end = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: bytes[valueStart..<end], as: UTF8.self)
    }

    /// Every number that follows `prefix` in `bytes`, e.g. message numbers after `"text":"load `.
    static func numbers(after prefix: [UInt8], in bytes: ArraySlice<UInt8>) -> [Int] {
        var found: [Int] = []
        var from = bytes.startIndex
        while let start = find(prefix, in: bytes[from...]) {
            let (value, end) = digits(in: bytes, from: start + prefix.count)
            if let value { found.append(value) }
            from = end
        }
        return found
    }

    /// The last `"name":123` in `bytes`: for a key near the end of a document,
    /// as the last of a view model's sorted keys is.
    static func lastInteger(named name: String, in bytes: ArraySlice<UInt8>) -> Int? {
        let key = Array("\"\(name)\":".utf8)
        guard let start = findLast(key, in: bytes) else { return nil }
        return digits(in: bytes, from: start + key.count).value
    }

    /// The index of the first `needle` in `bytes`, by `memchr` and `memcmp`
    /// (the client scans megabytes of events a second; a generic search showed
    /// in profiles). `memchr` looks for the needle's last byte, which in our
    /// needles (`"text":"load `, CRLF CRLF) is rarer than the first.
    static func find(_ needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        let anchor = needle.count - 1
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                let base = haystack.baseAddress!
                let last = haystack.count - pattern.count
                var offset = 0
                while offset <= last {
                    guard let hit = memchr(base + offset + anchor, Int32(pattern[anchor]), last - offset + 1) else { return nil }
                    let candidate = UnsafeRawPointer(hit) - base - anchor
                    if memcmp(base + candidate, pattern.baseAddress!, pattern.count) == 0 { return bytes.startIndex + candidate }
                    offset = candidate + 1
                }
                return nil
            }
        }
    }

    /// The index of the last `needle` in `bytes`, searching from the end.
    static func findLast(_ needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                var candidate = haystack.count - pattern.count
                while candidate >= 0 {
                    if haystack[candidate] == pattern[0], memcmp(haystack.baseAddress! + candidate, pattern.baseAddress!, pattern.count) == 0 {
                        return bytes.startIndex + candidate
                    }
                    candidate -= 1
                }
                return nil
            }
        }
    }

    private static func digits(in bytes: ArraySlice<UInt8>, from start: Int) -> (value: Int?, end: Int) {
        var index = start
        var value = 0
        while index < bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return (index > start ? value : nil, index)
    }
}
