@testable import TailorStore
import TailorTestSupport
import Synchronization
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

    /// Each entry keeps the users it touches beside it, read back with it,
    /// and the bus says them in its message; nil is anyone.
    @Test func anEntryKeepsTheUsersItTouchesAndTheBusSaysThem() throws {
        let (database, writer) = try Database.open(try TestDatabase.fresh(.postgres))
        defer { database.close() }
        let published = Mutex<[AnnouncedCommit]>([])
        let announcement = FeedAnnouncement(notifiesPostgres: { false }, publish: { commit in published.withLock { $0.append(commit) } })
        let feed = try FeedAppender(store: Store(writer), window: 100, origin: "here", announcement: announcement)
        let touching = try writer.transaction { try feed.append([1], touching: [2, 17], in: Store(writer)) }
        let anyone = try writer.transaction { try feed.append([2], touching: nil, in: Store(writer)) }
        let page = try Store(writer).feedPage(after: 0, limit: 10)
        #expect(page.entries.map(\.users) == [[2, 17], nil])
        let heard = published.withLock { $0 }.flatMap { BusWire.parse(BusWire.toEveryone($0)) }
        #expect(heard.map(\.position) == [touching, anyone])
        #expect(heard.map(\.users) == [[2, 17], nil])
        #expect(heard.map { $0.origin } == ["here", "here"])
        #expect(heard.map { $0.body.map(String.init) } == ["\u{1}", "\u{2}"])
        #expect(published.withLock { $0 }.map(\.stub) == [CommitStub(position: touching, users: [2, 17]), nil])
    }
}
