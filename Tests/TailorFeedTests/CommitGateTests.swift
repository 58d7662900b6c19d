import Synchronization
@testable import TailorDomain
import TailorFeed
import TailorLoop
import TailorStore
import TailorTestSupport
@testable import TailorViews
import Testing

/// On SQLite the writer's latest position is known only in memory: a reader's
/// snapshot begun under the gate must show exactly that position while the
/// writer commits beside it, or the kept chats would apply an entry twice or
/// miss one.
@Suite struct CommitGateTests {
    @Test func aSnapshotBegunUnderTheGateShowsExactlyThePositionItIsGiven() throws {
        let (database, writer) = try Database.open(try TestDatabase.fresh(.sqlite))
        defer { database.close() }
        let gate = CommitGate(committed: try Store(writer).lastPosition())
        let commits = 2_000
        // Each commit writes its own position where the reader can see it.
        let writing = SerialThread(name: "test-writer")
        let confined = ThreadConfined(writer)
        let written = Mutex<Result<Int, any Error>>(.success(0))
        writing.async {
            let writer = confined.value
            for position in 1...commits {
                do {
                    _ = try gate.commit {
                        try writer.transaction {
                            try writer.run("UPDATE feed_reserved SET position = ?", position)
                            return FeedEntry(position: position, changes: [])
                        }
                    }
                    written.withLock { $0 = .success(position) }
                } catch {
                    written.withLock { $0 = .failure(error) }
                    return
                }
            }
        }
        var snapshots = 0
        var mismatches: [(given: Int, shown: Int)] = []
        while case .success(let position) = written.withLock({ $0 }), position < commits {
            try database.read { store in
                let given = try gate.beginSnapshot { _ = try store.lastPosition() }
                let shown = try store.lastPosition()
                if given != shown { mismatches.append((given, shown)) }
            }
            snapshots += 1
        }
        #expect(try written.withLock { $0 }.get() == commits)
        #expect(snapshots > 10)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(snapshots) snapshots: \(mismatches.prefix(5))")
    }
}
