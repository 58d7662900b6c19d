@testable import TailorDomain
import TailorStore
import TailorTestSupport
@testable import TailorViews
import Testing

/// The follower's snapshot on PostgreSQL: begun by its first read, and the
/// position it shows read in that same snapshot, so that a chat read from it
/// and the position it is said to hold agree.
@Suite struct FeedSnapshotTests {
    @Test func thePositionShownIsTheOneOfTheFirstReadsSnapshot() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let (database, writer) = try Database.open(.postgres(url: url))
        defer { database.close() }
        let feed = try FeedAppender(store: Store(writer), window: 100)
        func commitEntry() throws -> Int { try writer.transaction { try feed.append([1], in: Store(writer)) } }
        let first = try commitEntry()
        let reader = try PostgresConnection(url: url)
        try reader.readTransaction {
            let snapshot = FeedSnapshot(takenWhenRead: Store(reader))
            // Not yet begun: the entry committed now is in the snapshot.
            let second = try commitEntry()
            #expect(try snapshot.reading().chatIDs(of: 1).isEmpty)
            // Begun by that read: a later commit is not.
            _ = try commitEntry()
            #expect(try snapshot.position() == second)
            #expect(second > first)
        }
        let third = try reader.readTransaction { try FeedSnapshot(takenWhenRead: Store(reader)).position() }
        #expect(third > first)
        #expect(try FeedSnapshot(Store(writer), showing: first).position() == first)
    }
}
