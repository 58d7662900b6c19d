import TailorHTTP

/// The date texts of API.md, in the server's time zone: the same day `14:05`,
/// the day before `Yesterday`, within the last 6 days the weekday (`Monday`),
/// older `3 Nov 2026`. Also the ISO 8601 UTC form of `…At` fields.
package struct DateText: Sendable {
    package let zone: TimeZoneRules

    package init(zone: TimeZoneRules) {
        self.zone = zone
    }

    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private struct LocalTime {
        let days: Int64
        let secondOfDay: Int64
    }

    /// `milliseconds` (since 1970) as seen at `now`.
    package func text(_ milliseconds: Int, now: Int) -> String {
        let local = localTime(milliseconds)
        switch localTime(now).days - local.days {
        case ...0:
            return Self.clock(local.secondOfDay)
        case 1:
            return "Yesterday"
        case 2...6:
            return Self.weekdays[CivilDate.weekday(days: local.days)]
        default:
            let date = CivilDate(days: local.days)
            return "\(date.day) \(Self.months[date.month - 1]) \(date.year)"
        }
    }

    /// When a contact was last seen, as `text` words it after "last seen":
    /// `last seen 14:05`, `last seen yesterday`, `last seen Monday`, `last seen 3 Nov 2026`.
    package func lastSeen(_ milliseconds: Int, now: Int) -> String {
        let days = localTime(now).days - localTime(milliseconds).days
        return "last seen " + (days == 1 ? "yesterday" : text(milliseconds, now: now))
    }

    /// The time of day only, `14:05`, for messages.
    package func time(_ milliseconds: Int) -> String {
        Self.clock(localTime(milliseconds).secondOfDay)
    }

    /// Milliseconds until the next midnight in this time zone, when date texts change.
    package func millisecondsUntilMidnight(now: Int) -> Int {
        let midnightLocal = (localTime(now).days + 1) * 86_400
        // The offset at midnight may differ from now's (a change of daylight time).
        var utc = midnightLocal - Int64(zone.offset(atUTC: Int64(now / 1000)))
        utc = midnightLocal - Int64(zone.offset(atUTC: utc))
        return max(Int(utc * 1000) - now, 1)
    }

    /// `2026-11-21T14:05:09Z`.
    package static func iso(_ milliseconds: Int) -> String {
        ISOTime.text(milliseconds)
    }

    private func localTime(_ milliseconds: Int) -> LocalTime {
        let utc = Int64(milliseconds).floorDivided(by: 1000)
        let local = utc + Int64(zone.offset(atUTC: utc))
        let days = local.floorDivided(by: 86_400)
        return LocalTime(days: days, secondOfDay: local - days * 86_400)
    }

    private static func clock(_ secondOfDay: Int64) -> String {
        let hour = Int(secondOfDay / 3600), minute = Int(secondOfDay % 3600 / 60)
        return String(unsafeUninitializedCapacity: 5) { text in
            text[0] = UInt8(ascii: "0") + UInt8(hour / 10)
            text[1] = UInt8(ascii: "0") + UInt8(hour % 10)
            text[2] = UInt8(ascii: ":")
            text[3] = UInt8(ascii: "0") + UInt8(minute / 10)
            text[4] = UInt8(ascii: "0") + UInt8(minute % 10)
            return 5
        }
    }
}
