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

    /// Milliseconds until the next midnight in this time zone, when date
    /// texts change: the first second whose local date is after now's. Where
    /// daylight saving time skips midnight (America/Havana, 23:59:59 then
    /// 01:00) that is the change itself; where it goes back an hour at 24:00
    /// (America/Santiago), the midnight after the repeated hour. Always after
    /// `now`, so that whoever waits for it finds the date changed.
    package func millisecondsUntilMidnight(now: Int) -> Int {
        let today = localTime(now).days
        let midnight = (today + 1) * 86_400
        // Midnight at the offset of now, then at the offset of that instant:
        // one of them is the answer unless a change of offset lands near midnight.
        let atNowsOffset = midnight - Int64(zone.offset(atUTC: Int64(now).floorDivided(by: 1000)))
        let atItsOwnOffset = midnight - Int64(zone.offset(atUTC: atNowsOffset))
        let second: Int64
        if atNowsOffset == atItsOwnOffset {
            // The offset at midnight is now's: nearly every day, with two lookups.
            second = atNowsOffset
        } else if startsNextDay(min(atNowsOffset, atItsOwnOffset), after: today, now: now) {
            second = min(atNowsOffset, atItsOwnOffset)
        } else if startsNextDay(max(atNowsOffset, atItsOwnOffset), after: today, now: now) {
            second = max(atNowsOffset, atItsOwnOffset)
        } else {
            second = firstSecond(after: today, from: Int64(now).floorDivided(by: 1000))
        }
        return max(Int(second * 1000) - now, 1)
    }

    /// Whether the UTC second `utc`, after `now`, is the first whose local date is after `today`.
    private func startsNextDay(_ utc: Int64, after today: Int64, now: Int) -> Bool {
        Int(utc * 1000) > now && localTime(Int(utc * 1000)).days > today && localTime(Int((utc - 1) * 1000)).days <= today
    }

    /// The first UTC second after `start` whose local date is after `today`,
    /// searched for: an hour at a time, then halving the last hour.
    private func firstSecond(after today: Int64, from start: Int64) -> Int64 {
        var before = start, after = start + 3600
        while localTime(Int(after * 1000)).days <= today {
            before = after
            after += 3600
        }
        while after - before > 1 {
            let middle = before + (after - before) / 2
            if localTime(Int(middle * 1000)).days > today { after = middle } else { before = middle }
        }
        return after
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
