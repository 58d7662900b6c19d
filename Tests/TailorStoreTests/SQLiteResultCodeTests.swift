import CSQLite
@testable import TailorStore
import Testing

/// Result codes as SQLite gives them: a primary pattern matches its extended
/// codes, an extended one only itself.
@Suite struct SQLiteResultCodeTests {
    @Test func primaryPatternsMatchTheirExtendedCodes() {
        let unique = SQLiteResultCode.constraintUnique
        #expect(unique.primary == .constraint)
        #expect(SQLiteResultCode.constraint ~= unique)
        #expect(SQLiteResultCode.constraintUnique ~= unique)
        #expect(!(SQLiteResultCode.constraintPrimaryKey ~= unique))
        #expect(!(SQLiteResultCode.busy ~= unique))
        let busySnapshot = SQLiteResultCode(SQLITE_BUSY | 2 << 8)
        switch busySnapshot {
        case .locked: Issue.record("busy is not locked")
        case .busy: break
        default: Issue.record("an extended busy code is busy")
        }
    }

    @Test func aRealUniqueViolationReadsAsOne() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (name TEXT UNIQUE)")
        _ = try connection.run("INSERT INTO t VALUES ('a')", binding: [])
        do {
            _ = try connection.run("INSERT INTO t VALUES ('a')", binding: [])
            Issue.record("a second 'a' was stored")
        } catch let error as SQLiteError {
            #expect(error.code == .constraintUnique)
            #expect(error.isUniqueViolation && error.isConstraintViolation && !error.mayPass)
        }
    }
}
