import Glibc

/// A time as ISO 8601 in UTC: `2026-11-21T14:05:09Z`, or with its
/// milliseconds, `2026-11-21T14:05:09.123Z`. The view models' `…At` fields,
/// the access log and the JSON server log write it.
public enum ISOTime {
    /// `milliseconds` since 1970, with the milliseconds written when `fraction` says so.
    public static func text(_ milliseconds: Int, fraction: Bool = false) -> String {
        var seconds = milliseconds / 1000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        let thousandths = ((milliseconds % 1000) + 1000) % 1000
        guard (0...9999).contains(year) else {
            return "\(year)-\(twoDigits(Int(parts.tm_mon) + 1))-\(twoDigits(Int(parts.tm_mday)))T"
                + "\(twoDigits(Int(parts.tm_hour))):\(twoDigits(Int(parts.tm_min))):\(twoDigits(Int(parts.tm_sec)))"
                + (fraction ? "." + String(String(thousandths + 1000).dropFirst()) : "") + "Z"
        }
        // Written digit by digit: every message of a chat's view model has one,
        // and string interpolation would be a noticeable part of a rebuild.
        return String(unsafeUninitializedCapacity: 24) { text in
            var index = 0
            func put(_ value: Int, digits: Int) {
                var value = value
                for position in stride(from: digits - 1, through: 0, by: -1) {
                    text[index + position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                index += digits
            }
            func put(_ character: Unicode.Scalar) {
                text[index] = UInt8(ascii: character)
                index += 1
            }
            put(year, digits: 4); put("-"); put(Int(parts.tm_mon) + 1, digits: 2); put("-"); put(Int(parts.tm_mday), digits: 2)
            put("T"); put(Int(parts.tm_hour), digits: 2); put(":"); put(Int(parts.tm_min), digits: 2); put(":")
            put(Int(parts.tm_sec), digits: 2)
            if fraction {
                put("."); put(thousandths, digits: 3)
            }
            put("Z")
            return index
        }
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
