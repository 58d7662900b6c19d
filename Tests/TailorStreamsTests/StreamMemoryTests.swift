@testable import TailorDomain
@testable import TailorStreams
@testable import TailorViews
import Testing

/// Which slow streams end past a budget, alone: one user's fan-out ends that
/// user's streams before another's stream that holds more on its own.
@Suite struct StreamMemoryTests {
    private typealias Holding = StreamMemory.Holding

    @Test func oneUsersFanOutEndsThatUsersStreamsFirst() {
        // Alice: 300 streams of 30 KB (9 MB); Bob: one of 200 KB.
        let holdings = (0..<300).map { _ in Holding(user: 1, bytes: 30_000) } + [Holding(user: 2, bytes: 200_000)]
        let ended = StreamMemory.toEnd(holdings, over: 8_000_000)
        #expect(!ended.contains(300), "Bob's stream stays")
        #expect(Set(ended).count == ended.count)
        let left = holdings.enumerated().filter { !ended.contains($0.offset) }.reduce(0) { $0 + $1.element.bytes }
        #expect(left <= 6_000_000 && left > 5_900_000, "down to three quarters of the budget, and no further")
    }

    @Test func theUserHoldingTheMostGivesUpItsLargestStreamFirst() {
        let holdings = [Holding(user: 1, bytes: 50), Holding(user: 1, bytes: 60), Holding(user: 2, bytes: 100), Holding(user: 3, bytes: 0)]
        #expect(StreamMemory.toEnd(holdings, over: 200) == [1])
        #expect(StreamMemory.toEnd(holdings, over: 100) == [1, 2])
        #expect(StreamMemory.toEnd(holdings, over: 210) == [])
    }
}
