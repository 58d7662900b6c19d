/// Base64 with the URL-safe alphabet and no padding (RFC 4648, section 5), as
/// Web Push writes keys, and JSON Web Tokens their parts.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            if second != nil { output.append(alphabet[Int(group >> 6 & 63)]) }
            if third != nil { output.append(alphabet[Int(group & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`, which may carry `=` padding (browsers' `toJSON()`
    /// leaves it out, some libraries put it in); nil when it is not Base64URL.
    public static func decode(_ text: String) -> [UInt8]? {
        var digits = Array(text.utf8)
        while digits.last == UInt8(ascii: "=") { digits.removeLast() }
        guard digits.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(digits.count * 3 / 4)
        var group: UInt32 = 0
        var count = 0
        for digit in digits {
            guard let value = value(of: digit) else { return nil }
            group = group << 6 | value
            count += 1
            if count == 4 {
                output += [UInt8(group >> 16 & 255), UInt8(group >> 8 & 255), UInt8(group & 255)]
                group = 0
                count = 0
            }
        }
        switch count {
        case 2: output.append(UInt8(group >> 4 & 255))
        case 3: output += [UInt8(group >> 10 & 255), UInt8(group >> 2 & 255)]
        default: break
        }
        return output
    }

    private static func value(of digit: UInt8) -> UInt32? {
        switch digit {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(digit - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(digit - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(digit - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
