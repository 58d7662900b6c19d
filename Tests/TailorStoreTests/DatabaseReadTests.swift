import TailorStore
import TailorTestSupport
import Testing

/// Reads asked for by a loop run on the database's reader threads, never on
/// the loop itself, on either engine.
@Suite struct DatabaseReadTests {
    @Test(arguments: Backend.allCases)
    func aReadForALoopRunsOnAReaderThread(backend: Backend) async throws {
        let (database, _) = try Database.open(try TestDatabase.fresh(backend))
        defer { database.close() }
        let name = try await database.readOffLoop { store in
            _ = try store.lastPosition()
            return ThreadNames.current
        }
        #expect(name.hasPrefix("read-"))
    }
}
