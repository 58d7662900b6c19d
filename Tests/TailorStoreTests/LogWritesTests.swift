import Foundation
@testable import TailorStore
import TailorTestSupport
import Testing

/// The write-ahead log's frames reach the file a commit at a time (see
/// CSQLiteLogWrites): one system call where SQLite makes two per page, and a
/// database that reads the same whatever was committed, spilled or undone.
@Suite struct LogWritesTests {
    @Test func aCommitOfManyPagesIsOneWrite() throws {
        let path = try Self.freshPath()
        let writer = try Self.openInLogMode(path)
        try writer.execute("CREATE TABLE t (n INTEGER, payload BLOB)")
        let before = try Self.writeCallsOfThisThread()
        // About twenty pages: forty writes a commit without the coalescing.
        try writer.transaction {
            for n in 0..<20 { _ = try writer.run("INSERT INTO t VALUES (?, randomblob(3000))", binding: [n]) }
        }
        let writes = try Self.writeCallsOfThisThread() - before
        #expect(writes == 1, "the commit took \(writes) write calls")
        #expect(try writer.first("SELECT count(*) FROM t", binding: []) { $0.int(0) } == 20)
    }

    /// Commits of every size from one page to several times what one write
    /// passes on, each read back by a second connection at once: wherever the
    /// commit frame falls among the bytes held, it is written before it is seen.
    @Test func everyCommitIsWholeWhenAnotherConnectionReadsIt() throws {
        let path = try Self.freshPath()
        let writer = try Self.openInLogMode(path)
        try writer.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, payload BLOB)")
        let reader = try SQLiteConnection(path: path, readOnly: true)
        var rows = 0
        for size in 1...100 {
            try writer.transaction {
                for _ in 0..<size { _ = try writer.run("INSERT INTO t (payload) VALUES (zeroblob(3000))", binding: []) }
            }
            rows += size
            let seen = try reader.readTransaction {
                (check: try reader.first("PRAGMA quick_check", binding: []) { $0.text(0) },
                 totals: try reader.first("SELECT count(*), sum(length(payload)) FROM t", binding: []) { [$0.int(0), $0.int(1)] })
            }
            #expect(seen.check == "ok", "after a commit of \(size) rows")
            #expect(seen.totals == [rows, rows * 3000], "after a commit of \(size) rows")
            if seen.check != "ok" { return }
        }
    }

    /// What the files hold the moment a commit is seen is what a server that
    /// stopped dead then would find: a copy of the database and its log,
    /// without the shared memory, is recovered from the log alone (checksums
    /// checked) and shows every commit. Transactions here spill their cache,
    /// then change pages already spilled, so SQLite rewrites frames in place
    /// and their checksums after the commit frame.
    @Test func aCommitIsInTheFilesOnceSeen() throws {
        let path = try Self.freshPath()
        let writer = try Self.openInLogMode(path)
        try writer.execute("PRAGMA cache_size = 10")
        try writer.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, round INTEGER, payload BLOB)")
        for round in 1...4 {
            try writer.transaction {
                for _ in 0..<200 { _ = try writer.run("INSERT INTO t (round, payload) VALUES (?, zeroblob(600))", binding: [round]) }
                _ = try writer.run("UPDATE t SET payload = zeroblob(500) WHERE round = ?", binding: [round])
            }
            let copy = try Self.freshPath()
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
            }
            let recovered = try SQLiteConnection(path: copy)
            #expect(try recovered.first("SELECT count(*), sum(length(payload)) FROM t", binding: []) { [$0.int(0), $0.int(1)] }
                    == [round * 200, round * 200 * 500], "after round \(round)")
            #expect(try recovered.first("PRAGMA integrity_check", binding: []) { $0.text(0) } == "ok")
        }
    }

    @Test func spilledUndoneAndLargeCommitsLeaveTheDatabaseWhole() throws {
        let path = try Self.freshPath()
        var expected = 0
        do {
            let writer = try Self.openInLogMode(path)
            // A page cache of ten pages: a large transaction spills frames to the
            // log before its commit frame, and an undone one leaves them there.
            try writer.execute("PRAGMA cache_size = 10")
            try writer.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, payload BLOB)")
            try writer.execute("CREATE INDEX t_payload ON t(payload)")
            let reader = try SQLiteConnection(path: path, readOnly: true)
            struct Undo: Error {}
            for round in 0..<6 {
                // Larger than the most one write passes on (128 KiB).
                try writer.transaction {
                    for _ in 0..<300 { _ = try writer.run("INSERT INTO t (payload) VALUES (randomblob(700))", binding: []) }
                }
                expected += 300
                #expect(try reader.first("SELECT count(*) FROM t", binding: []) { $0.int(0) } == expected)
                #expect(throws: Undo.self) {
                    try writer.transaction {
                        for _ in 0..<300 { _ = try writer.run("INSERT INTO t (payload) VALUES (randomblob(700))", binding: []) }
                        throw Undo()
                    }
                }
                _ = try writer.run("INSERT INTO t (payload) VALUES (?)", binding: ["round \(round)"])
                expected += 1
                #expect(try reader.first("SELECT count(*) FROM t", binding: []) { $0.int(0) } == expected)
            }
            #expect(try reader.first("PRAGMA integrity_check", binding: []) { $0.text(0) } == "ok")
        }
        // Closed and opened again: what the log held is in the file.
        let again = try SQLiteConnection(path: path)
        #expect(try again.first("PRAGMA integrity_check", binding: []) { $0.text(0) } == "ok")
        #expect(try again.first("SELECT count(*) FROM t", binding: []) { $0.int(0) } == expected)
    }

    private static func freshPath() throws -> String {
        guard case .sqlite(let path) = try TestDatabase.fresh(.sqlite) else { throw NotSQLite() }
        return path
    }

    private struct NotSQLite: Error {}

    private static func openInLogMode(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL")
        return connection
    }

    /// The write system calls (write, pwrite, writev…) this thread has made.
    private static func writeCallsOfThisThread() throws -> Int {
        let report = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        for line in report.split(separator: "\n") where line.hasPrefix("syscw:") {
            if let count = Int(line.dropFirst("syscw:".count).trimmingCharacters(in: .whitespaces)) { return count }
        }
        throw UnreadableReport()
    }

    private struct UnreadableReport: Error {}
}
