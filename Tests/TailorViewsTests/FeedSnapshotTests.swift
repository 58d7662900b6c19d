@testable import TailorDomain
import TailorStore
import TailorTestSupport
@testable import TailorViews
import Testing

/// The follower's snapshot on PostgreSQL: begun by its first read, and the
/// entries it shows read in that same snapshot, so that a chat read from it
/// and the entries it is said to hold agree.
@Suite struct FeedSnapshotTests {
    @Test func theEntriesShownAreTheOnesOfTheFirstReadsSnapshot() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let (database, writer) = try Database.open(.postgres(url: url))
        defer { database.close() }
        let feed = try FeedAppender(store: Store(writer), window: 100)
        func commitEntry() throws -> Int { try writer.transaction { try feed.append([1], in: Store(writer)) } }
        let first = try commitEntry()
        let reader = try PostgresConnection(url: url)
        try reader.readTransaction {
            let snapshot = FeedSnapshot(takenWhenRead: Store(reader), pastApplied: first)
            // Not yet begun: the entry committed now is in the snapshot.
            let second = try commitEntry()
            #expect(try snapshot.reading().chatIDs(of: 1).isEmpty)
            // Begun by that read: a later commit is not.
            let third = try commitEntry()
            #expect(try snapshot.place() == FeedPlace(through: second))
            #expect(try !snapshot.place().shows(third))
        }
        #expect(try FeedSnapshot(Store(writer), showing: first).place() == FeedPlace(through: first))
    }

    /// Servers commit at once: a snapshot may show an entry and not the one
    /// before it, whose commit is under way. A chat read from it shows the
    /// later entry and not the earlier, which is applied to it when it comes.
    @Test func aSnapshotShowsAnEntryPastOneWhoseCommitIsUnderWay() throws {
        guard case .postgres(let url) = try TestDatabase.fresh(.postgres) else { return }
        let (database, writer) = try Database.open(.postgres(url: url))
        defer { database.close() }
        let feed = try FeedAppender(store: Store(writer), window: 100)
        let first = try writer.transaction { try feed.append([1], in: Store(writer)) }
        let other = try PostgresConnection(url: url)
        try other.execute("BEGIN")
        let underWay = try #require(try other.first("SELECT nextval('changes_position')", binding: []) { $0.int(0) })
        try other.run("INSERT INTO changes (position, body) VALUES (?, CAST(? AS BYTEA))", underWay, [UInt8]([1]))
        let later = try writer.transaction { try feed.append([1], in: Store(writer)) }
        #expect(later > underWay)
        let reader = try PostgresConnection(url: url)
        let place = try reader.readTransaction { try FeedSnapshot(takenWhenRead: Store(reader), pastApplied: first).place() }
        #expect(place == FeedPlace(through: first, beyond: [later]))
        #expect(place.shows(later) && !place.shows(underWay))
        try other.execute("COMMIT")
        let after = try reader.readTransaction { try FeedSnapshot(takenWhenRead: Store(reader), pastApplied: first).place() }
        #expect(after == FeedPlace(through: later))
    }
}
