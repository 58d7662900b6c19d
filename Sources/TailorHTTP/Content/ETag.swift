/// Strong entity tags (RFC 9110 §8.8.3) derived from content, so the same bytes
/// get the same tag on every start and every server.
public enum ETag {
    /// `"` + 16 hex digits of the 64-bit hash of `bytes` + `suffix` + `"`.
    public static func strong(for bytes: UnsafeRawBufferPointer, suffix: String = "") -> String {
        strong(hash: hash(bytes), suffix: suffix)
    }

    /// A 64-bit hash of `bytes`, eight bytes a step: every rebuilt view model is
    /// hashed, so a byte-at-a-time hash showed in profiles. It tells versions of
    /// our own content apart; it is not meant to resist a forger.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01b3
            offset += 1
        }
        hash = (hash ^ (hash >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return hash ^ (hash >> 32)
    }

    /// The tag for a hash made by `hash(_:)`. Written digit by digit: every
    /// rebuilt view model gets one.
    public static func strong(hash: UInt64, suffix: String = "") -> String {
        let suffix = suffix.utf8
        return String(unsafeUninitializedCapacity: 18 + suffix.count) { text in
            let digits: StaticString = "0123456789abcdef"
            text[0] = UInt8(ascii: "\"")
            for place in 0..<16 {
                text[1 + place] = digits.utf8Start[Int(truncatingIfNeeded: hash >> UInt64(60 - 4 * place)) & 0xf]
            }
            var end = 17
            for byte in suffix {
                text[end] = byte
                end += 1
            }
            text[end] = UInt8(ascii: "\"")
            return end + 1
        }
    }

    /// Whether an `If-None-Match` field matches `tag`: `*`, or any listed tag
    /// equal to it under the weak comparison of RFC 9110 §13.1.2. Read on the
    /// field's bytes in place, as a conditional GET is answered: no copy of
    /// the field, no list of its tags.
    public static func ifNoneMatch(_ header: ArraySlice<UInt8>, matches tag: String) -> Bool {
        var tag = tag.utf8[...]
        if tag.starts(with: "W/".utf8) { tag = tag.dropFirst(2) }
        var rest = header
        while !rest.isEmpty {
            let comma = rest.firstIndex(of: UInt8(ascii: ",")) ?? rest.endIndex
            var candidate = rest[..<comma]
            rest = comma == rest.endIndex ? rest[comma...] : rest[(comma + 1)...]
            while let first = candidate.first, HTTPHeaders.isSpace(first) { candidate.removeFirst() }
            while let last = candidate.last, HTTPHeaders.isSpace(last) { candidate.removeLast() }
            if candidate.elementsEqual("*".utf8) { return true }
            if candidate.starts(with: "W/".utf8) { candidate = candidate.dropFirst(2) }
            if candidate.elementsEqual(tag) { return true }
        }
        return false
    }
}
