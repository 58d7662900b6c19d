import Glibc

/// The `Date` field's IMF-fixdate (RFC 9110 §5.6.7), formatted once a second.
///
/// Each loop keeps its own, so reading it takes no lock.
final class HTTPDate {
    private var second = -1
    private(set) var bytes: [UInt8] = []

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The current date's bytes, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    func current() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            bytes = Array(Self.format(now).utf8)
        }
        return bytes
    }

    static func format(_ seconds: Int) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
