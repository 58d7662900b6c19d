import Testing
@testable import TailorViews

/// The next midnight, when date texts change, where daylight saving time
/// skips midnight, repeats it, or changes the offset at 24:00: found in local
/// time, once a local day, never sooner than the date changes.
@Suite struct MidnightTests {
    /// The instants a ticker that waits for each midnight (and 10 ms more, as
    /// the server's does) wakes at, from `start` (UTC seconds) for `hours`.
    private func wakes(in zone: String, from start: Int, hours: Int) throws -> [Int] {
        let dates = DateText(zone: try #require(TimeZoneRules.named(zone)))
        var now = start * 1000, woken: [Int] = []
        while woken.count < 100 {
            now += dates.millisecondsUntilMidnight(now: now) + 10
            guard now < (start + hours * 3600) * 1000 else { return woken }
            woken.append(now / 1000)
        }
        return woken
    }

    @Test func aMidnightThatDaylightSavingSkipsIsTheChangeItself() throws {
        // Havana, 2027-03-14: 23:59:59 CST (05:00 UTC) is followed by 01:00 CDT.
        // From 22:00 the night before: the change, then the next midnight (04:00 UTC).
        #expect(try wakes(in: "America/Havana", from: 1_804_993_200, hours: 30) == [1_805_000_400, 1_805_083_200])
        // Santiago, 2027-09-05: 24:00 -04 (04:00 UTC) is 01:00 -03.
        #expect(try wakes(in: "America/Santiago", from: 1_820_109_600, hours: 30) == [1_820_116_800, 1_820_199_600])
    }

    @Test func aMidnightAfterAnHourRepeatedAt24IsTheSecond() throws {
        // Santiago, 2027-04-04: 24:00 -03 (03:00 UTC) is 23:00 -04 again; the date changes at 04:00 UTC.
        #expect(try wakes(in: "America/Santiago", from: 1_806_804_000, hours: 30) == [1_806_811_200, 1_806_897_600])
    }

    @Test func aMidnightThatRepeatsIsOneChange() throws {
        // Havana, 2027-11-07: 00:59:59 CDT is followed by 00:00 CST; the date changed at the first midnight (04:00 UTC).
        #expect(try wakes(in: "America/Havana", from: 1_825_556_400, hours: 30) == [1_825_560_000, 1_825_650_000])
    }

    @Test func anOrdinaryNightHasOneMidnight() throws {
        // Berlin, 2027-03-28: the change at 02:00 leaves midnight alone; that day has 23 hours.
        #expect(try wakes(in: "Europe/Berlin", from: 1_806_184_800, hours: 30) == [1_806_188_400, 1_806_188_400 + 23 * 3600])
    }
}
