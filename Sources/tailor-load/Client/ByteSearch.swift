import Glibc

/// Finding a run of bytes in bytes: JSON fields, header ends, event ends.
extension ArraySlice<UInt8> {
    /// The index where `needle` first occurs, by `memchr` and `memcmp`
    /// (the client scans megabytes of events a second; a generic search showed
    /// in profiles). `memchr` looks for the needle's last byte, which in our
    /// needles (`"text":"load `, CRLF CRLF) is rarer than the first.
    func firstIndex(ofBytes needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, count >= needle.count else { return nil }
        let anchor = needle.count - 1
        return withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                let base = haystack.baseAddress!
                let last = haystack.count - pattern.count
                var offset = 0
                while offset <= last {
                    guard let hit = memchr(base + offset + anchor, Int32(pattern[anchor]), last - offset + 1) else { return nil }
                    let candidate = UnsafeRawPointer(hit) - base - anchor
                    if memcmp(base + candidate, pattern.baseAddress!, pattern.count) == 0 { return startIndex + candidate }
                    offset = candidate + 1
                }
                return nil
            }
        }
    }

    /// The index where `needle` last occurs, searching from the end.
    func lastIndex(ofBytes needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, count >= needle.count else { return nil }
        return withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                var candidate = haystack.count - pattern.count
                while candidate >= 0 {
                    if haystack[candidate] == pattern[0], memcmp(haystack.baseAddress! + candidate, pattern.baseAddress!, pattern.count) == 0 {
                        return startIndex + candidate
                    }
                    candidate -= 1
                }
                return nil
            }
        }
    }
}
