import Foundation

/// The date texts of API.md, in the server's time zone: the same day `14:05`,
/// the day before `Yesterday`, within the last 6 days the weekday (`Monday`),
/// older `3 Nov 2026`. Also the ISO 8601 UTC form of `…At` fields.
struct DateText: Sendable {
    let timeZone: TimeZone
    private let calendar: Calendar

    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// `milliseconds` (since 1970) as seen at `now`.
    func text(_ milliseconds: Int, now: Int) -> String {
        let date = Self.date(milliseconds)
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: calendar.startOfDay(for: Self.date(now))).day ?? 0
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date)
        switch days {
        case ...0:
            return Self.twoDigits(parts.hour!) + ":" + Self.twoDigits(parts.minute!)
        case 1:
            return "Yesterday"
        case 2...6:
            return Self.weekdays[parts.weekday! - 1]
        default:
            return "\(parts.day!) \(Self.months[parts.month! - 1]) \(parts.year!)"
        }
    }

    /// The time of day only, `14:05`, for messages.
    func time(_ milliseconds: Int) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: Self.date(milliseconds))
        return Self.twoDigits(parts.hour!) + ":" + Self.twoDigits(parts.minute!)
    }

    /// `2026-11-21T14:05:09Z`.
    static func iso(_ milliseconds: Int) -> String {
        var seconds = milliseconds / 1000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(parts.tm_year + 1900)-\(twoDigits(Int(parts.tm_mon) + 1))-\(twoDigits(Int(parts.tm_mday)))T"
            + "\(twoDigits(Int(parts.tm_hour))):\(twoDigits(Int(parts.tm_min))):\(twoDigits(Int(parts.tm_sec)))Z"
    }

    /// Milliseconds until the next midnight in this time zone, when date texts change.
    func millisecondsUntilMidnight(now: Int) -> Int {
        let start = calendar.startOfDay(for: Self.date(now))
        let next = calendar.date(byAdding: .day, value: 1, to: start)!
        return max(Int(next.timeIntervalSince1970 * 1000) - now, 1)
    }

    private static func date(_ milliseconds: Int) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
