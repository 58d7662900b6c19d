import Testing
@testable import TailorApp

/// When the server gives free heap memory back: after many connections close,
/// and once the resident size grew by a step since the last trim — under a
/// steady load where no connection closes, the second is the only one.
@Suite struct MemoryUpkeepTests {
    @Test func aSteadyLoadThatGrowsTheProcessByAStepTrims() {
        var upkeep = MemoryUpkeep(openConnections: 100, residentKiB: 100_000)
        let step = MemoryUpkeep.residentGrowthBeforeTrim
        let look1 = upkeep.shouldTrim(openConnections: 100, residentKiB: 100_000 + step - 1)
        #expect(!look1)
        let look2 = upkeep.shouldTrim(openConnections: 100, residentKiB: 100_000 + step)
        #expect(look2)
        upkeep.trimmed(openConnections: 100, residentKiB: 90_000)
        // Counted from the size the trim left.
        let look3 = upkeep.shouldTrim(openConnections: 100, residentKiB: 90_000 + step - 1)
        #expect(!look3)
        let look4 = upkeep.shouldTrim(openConnections: 100, residentKiB: 90_000 + step)
        #expect(look4)
    }

    @Test func aTrimThatGaveLittleBackIsNotTriedAgainUntilTheProcessGrowsAStepMore() {
        let step = MemoryUpkeep.residentGrowthBeforeTrim
        var upkeep = MemoryUpkeep(openConnections: 0, residentKiB: 50_000)
        let look5 = upkeep.shouldTrim(openConnections: 0, residentKiB: 50_000 + step)
        #expect(look5)
        upkeep.trimmed(openConnections: 0, residentKiB: 50_000 + step)
        let look6 = upkeep.shouldTrim(openConnections: 0, residentKiB: 50_000 + step)
        #expect(!look6)
        let look7 = upkeep.shouldTrim(openConnections: 0, residentKiB: 50_000 + 2 * step)
        #expect(look7)
    }

    @Test func manyConnectionsClosedSinceThePeakTrim() {
        let burst = MemoryUpkeep.connectionsFreedBeforeTrim
        var upkeep = MemoryUpkeep(openConnections: 10, residentKiB: 100_000)
        let look8 = upkeep.shouldTrim(openConnections: 10 + burst, residentKiB: 100_000)
        #expect(!look8)
        let look9 = upkeep.shouldTrim(openConnections: 11, residentKiB: 100_000)
        #expect(!look9)
        let look10 = upkeep.shouldTrim(openConnections: 10, residentKiB: 100_000)
        #expect(look10)
        upkeep.trimmed(openConnections: 10, residentKiB: 100_000)
        let look11 = upkeep.shouldTrim(openConnections: 10, residentKiB: 100_000)
        #expect(!look11)
    }
}
