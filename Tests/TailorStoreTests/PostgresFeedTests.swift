@testable import TailorStore
import TailorTestSupport
import Testing

/// PostgreSQL's change feed as the writer keeps it: entries in position
/// order, pruned to the window, the horizon moved with them.
@Suite struct PostgresFeedTests {
    @Test func theFeedKeepsItsWindowAndItsHorizonMovesWithThePrunedEntries() throws {
        let (database, writer) = try Database.open(try TestDatabase.fresh(.postgres))
        defer { database.close() }
        let feed = try FeedAppender(store: Store(writer), window: 3)
        var positions: [Int] = []
        for index in 0..<10 {
            positions.append(try writer.transaction { try feed.append([UInt8(index)], in: Store(writer)) })
            let page = try Store(writer).feedPage(after: 0, limit: 100)
            // Pruned every `window` positions (at most), in the commit after:
            // between prunings the feed holds up to two windows.
            #expect(page.entries.map(\.position) == Array((page.horizon + 1)...positions.last!))
            #expect(page.latest == positions.last!)
            #expect(page.entries.count >= min(positions.count, 3) && page.entries.count <= 6)
        }
        #expect(positions == Array(1...10))
        let page = try Store(writer).feedPage(after: 0, limit: 100)
        #expect(page.horizon == 6)
        #expect(page.entries.map(\.body) == [[6], [7], [8], [9]])
    }
}
