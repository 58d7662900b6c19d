@testable import TailorApp
@testable import TailorDomain
@testable import TailorStreams
@testable import TailorViews
import Testing

/// When the server gives free heap memory back: after many connections close,
/// and once the resident size grew by a step since the last trim — under a
/// steady load where no connection closes, the second is the only one.
/// (`#expect` cannot hold a mutating call, so each answer is taken first.)
@Suite struct MemoryUpkeepTests {
    @Test func aSteadyLoadThatGrowsTheProcessByAStepTrims() {
        var trims: Bool
        var upkeep = MemoryUpkeep(openConnections: 100, residentKiB: 100_000)
        let step = MemoryUpkeep.residentGrowthBeforeTrim
        trims = upkeep.shouldTrim(openConnections: 100, residentKiB: 100_000 + step - 1)
        #expect(!trims)
        trims = upkeep.shouldTrim(openConnections: 100, residentKiB: 100_000 + step)
        #expect(trims)
        upkeep.trimmed(openConnections: 100, residentKiB: 90_000)
        // Counted from the size the trim left.
        trims = upkeep.shouldTrim(openConnections: 100, residentKiB: 90_000 + step - 1)
        #expect(!trims)
        trims = upkeep.shouldTrim(openConnections: 100, residentKiB: 90_000 + step)
        #expect(trims)
    }

    @Test func aTrimThatGaveLittleBackIsNotTriedAgainUntilTheProcessGrowsAStepMore() {
        var trims: Bool
        let step = MemoryUpkeep.residentGrowthBeforeTrim
        var upkeep = MemoryUpkeep(openConnections: 0, residentKiB: 50_000)
        trims = upkeep.shouldTrim(openConnections: 0, residentKiB: 50_000 + step)
        #expect(trims)
        upkeep.trimmed(openConnections: 0, residentKiB: 50_000 + step)
        trims = upkeep.shouldTrim(openConnections: 0, residentKiB: 50_000 + step)
        #expect(!trims)
        trims = upkeep.shouldTrim(openConnections: 0, residentKiB: 50_000 + 2 * step)
        #expect(trims)
    }

    @Test func manyConnectionsClosedSinceThePeakTrim() {
        var trims: Bool
        let burst = MemoryUpkeep.connectionsFreedBeforeTrim
        var upkeep = MemoryUpkeep(openConnections: 10, residentKiB: 100_000)
        trims = upkeep.shouldTrim(openConnections: 10 + burst, residentKiB: 100_000)
        #expect(!trims)
        trims = upkeep.shouldTrim(openConnections: 11, residentKiB: 100_000)
        #expect(!trims)
        trims = upkeep.shouldTrim(openConnections: 10, residentKiB: 100_000)
        #expect(trims)
        upkeep.trimmed(openConnections: 10, residentKiB: 100_000)
        trims = upkeep.shouldTrim(openConnections: 10, residentKiB: 100_000)
        #expect(!trims)
    }
}
