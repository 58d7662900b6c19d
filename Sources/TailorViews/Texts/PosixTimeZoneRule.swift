import TailorDomain
/// A POSIX TZ rule such as `CET-1CEST,M3.5.0,M10.5.0/3`: a standard offset and,
/// optionally, a daylight offset with the dates it starts and ends each year.
package struct PosixTimeZoneRule: Sendable {
    /// A day of the year as the rule gives it, and the local time of the change.
    package struct Change: Sendable {
        package enum Day: Sendable {
            /// Month, week (5 = last) and weekday (0 = Sunday): `M3.5.0`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
            /// Day 1–365, never counting 29 February: `J60`.
            case julianNoLeap(Int)
            /// Day 0–365, counting 29 February: `59`.
            case zeroBased(Int)
        }

        package let day: Day
        /// Seconds after local midnight; may be negative or past a day.
        package let time: Int64
    }

    package let standardOffset: Int32
    package let daylightOffset: Int32?
    package let start: Change?
    package let end: Change?

    package init?(_ text: String) {
        var scanner = Scanner(Array(text.utf8))
        guard scanner.name(), let standard = scanner.offset() else { return nil }
        standardOffset = Int32(-standard)
        guard scanner.name() else {
            daylightOffset = nil
            start = nil
            end = nil
            return
        }
        let daylight = scanner.peek == UInt8(ascii: ",") || scanner.atEnd ? standard - 3600 : scanner.offset()
        guard let daylight, scanner.take(UInt8(ascii: ",")), let start = scanner.change(), scanner.take(UInt8(ascii: ",")),
              let end = scanner.change() else {
            // A daylight name with no rule: US rules are the POSIX default, too old to guess at.
            return nil
        }
        daylightOffset = Int32(-daylight)
        self.start = start
        self.end = end
    }

    package func offset(atUTC seconds: Int64) -> Int32 {
        guard let daylightOffset, let start, let end else { return standardOffset }
        let year = CivilDate(days: Int64((seconds + Int64(standardOffset)).floorDivided(by: 86_400))).year
        // The start is given in standard time, the end in daylight time.
        let starts = start.utcSeconds(year: year) - Int64(standardOffset)
        let ends = end.utcSeconds(year: year) - Int64(daylightOffset)
        let inDaylight = starts < ends ? (seconds >= starts && seconds < ends) : !(seconds >= ends && seconds < starts)
        return inDaylight ? daylightOffset : standardOffset
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[position] }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            position += 1
            return true
        }

        /// A zone abbreviation: letters, or anything within `<…>`.
        mutating func name() -> Bool {
            if take(UInt8(ascii: "<")) {
                while let byte = peek, byte != UInt8(ascii: ">") { position += 1 }
                return take(UInt8(ascii: ">"))
            }
            let start = position
            while let byte = peek, (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") { position += 1 }
            return position - start >= 3
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        mutating func offset() -> Int64? {
            var sign: Int64 = 1
            if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
            guard let hours = number() else { return nil }
            var total = hours * 3600
            if take(UInt8(ascii: ":")) {
                guard let minutes = number() else { return nil }
                total += minutes * 60
                if take(UInt8(ascii: ":")) {
                    guard let seconds = number() else { return nil }
                    total += seconds
                }
            }
            return sign * total
        }

        mutating func number() -> Int64? {
            let start = position
            var value: Int64 = 0
            while let byte = peek, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"), position - start < 6 {
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                position += 1
            }
            return position > start ? value : nil
        }

        mutating func change() -> Change? {
            let day: Change.Day
            if take(UInt8(ascii: "M")) {
                guard let month = number(), take(UInt8(ascii: ".")), let week = number(), take(UInt8(ascii: ".")), let weekday = number(),
                      (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else { return nil }
                day = .monthWeekDay(month: Int(month), week: Int(week), weekday: Int(weekday))
            } else if take(UInt8(ascii: "J")) {
                guard let number = number(), (1...365).contains(number) else { return nil }
                day = .julianNoLeap(Int(number))
            } else {
                guard let number = number(), (0...365).contains(number) else { return nil }
                day = .zeroBased(Int(number))
            }
            var time: Int64 = 7200
            if take(UInt8(ascii: "/")) {
                guard let given = offset() else { return nil }
                time = given
            }
            return Change(day: day, time: time)
        }
    }
}

extension PosixTimeZoneRule.Change {
    /// Seconds since 1970 of this change in `year`, as if local time were UTC.
    package func utcSeconds(year: Int64) -> Int64 {
        let days: Int64
        switch day {
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate.days(year: year, month: month, day: 1)
            let firstWeekday = CivilDate.weekday(days: first)
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = CivilDate.days(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1) - first
            while dayOfMonth > length { dayOfMonth -= 7 }
            days = first + Int64(dayOfMonth - 1)
        case .julianNoLeap(let number):
            let leapShift = CivilDate.isLeap(year) && number >= 60 ? 1 : 0
            days = CivilDate.days(year: year, month: 1, day: 1) + Int64(number - 1 + leapShift)
        case .zeroBased(let number):
            days = CivilDate.days(year: year, month: 1, day: 1) + Int64(number)
        }
        return days * 86_400 + time
    }
}

/// Dates of the proleptic Gregorian calendar from days since 1970-01-01 and back
/// (H. Hinnant's civil-from-days algorithms).
package struct CivilDate: Equatable, Sendable {
    package let year: Int64
    package let month: Int
    package let day: Int

    package init(days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    package static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = Int64((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 0 = Sunday; 1970-01-01 was a Thursday.
    package static func weekday(days: Int64) -> Int {
        Int(((days % 7) + 11) % 7)
    }

    package static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }
}

extension Int64 {
    package func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
