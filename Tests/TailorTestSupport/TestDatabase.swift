import Foundation
import TailorStore

/// The database engines every store and API test runs on.
public enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { rawValue }
}

/// Fresh, empty databases for tests: a SQLite file in a folder of its own, or
/// a schema of its own on the PostgreSQL server that `scripts/test` starts and
/// names in `TAILOR_TEST_POSTGRES` (a `postgresql://` URL).
public enum TestDatabase {
    /// The variable that names the test PostgreSQL server.
    public static let serverVariable = "TAILOR_TEST_POSTGRES"

    public static var serverURL: String? { ProcessInfo.processInfo.environment[serverVariable] }

    public struct NoServer: Error, CustomStringConvertible {
        public var description: String {
            "no PostgreSQL server for tests: run scripts/test, which starts one, or set \(TestDatabase.serverVariable) to a postgresql:// URL"
        }
    }

    /// Ends every connection to a PostgreSQL database made by `fresh`, as a
    /// restart of the database server would; with `suffix`, those whose
    /// application name has it added (the servers' feed followers: "-feed").
    public static func dropConnections(to location: DatabaseLocation, suffix: String = "") throws {
        guard case .postgres(let url) = location, let server = serverURL,
              let name = url.split(separator: "application_name=").last else { return }
        let connection = try PostgresConnection(url: server)
        let ended = try connection.query(
            "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?", String(name) + suffix) { $0.int(0) }
        // Ended once they have left: a backend ends a moment after it is told
        // to (the servers' new connections, which take their places, stay).
        guard !ended.isEmpty else { return }
        let pids = ended.map { String($0) }.joined(separator: ",")
        _ = try eventually {
            try connection.first("SELECT count(*) FROM pg_stat_activity WHERE pid IN (\(pids))") { $0.int(0) } == 0
        }
    }

    /// A connection of the test's own to `location`, for what no server does
    /// (making a database look as an older version left it).
    public static func connection(to location: DatabaseLocation) throws -> any DatabaseConnection {
        switch location {
        case .sqlite(let path): try SQLiteConnection(path: path)
        case .postgres(let url): try PostgresConnection(url: url)
        }
    }

    /// A PostgreSQL database of its own on the test server, for a test that
    /// reads what PostgreSQL counts per database (its deadlocks): the other
    /// tests' schemas share the server's one database. Its URL, and a way to
    /// read its deadlocks once every connection to it has ended.
    public static func ownPostgresDatabase() throws -> (url: String, deadlocks: () throws -> Int) {
        guard let server = serverURL else { throw NoServer() }
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(url: server).execute("CREATE DATABASE \(name)")
        guard let slash = server.lastIndex(of: "/") else { throw NoServer() }
        let url = server[..<slash] + "/" + name
        // A backend hands its counts to the server's statistics as it ends,
        // before it leaves pg_stat_activity: wait for the last to leave.
        let deadlocks = {
            let connection = try PostgresConnection(url: server)
            _ = try eventually(timeout: 10) {
                try connection.first("SELECT count(*) FROM pg_stat_activity WHERE datname = ?", name) { $0.int(0) } == 0
            }
            return try connection.first("SELECT deadlocks FROM pg_stat_database WHERE datname = ?", name) { $0.int(0) } ?? 0
        }
        return (url, deadlocks)
    }

    /// A new database on `backend`, empty until a server or store opens it.
    public static func fresh(_ backend: Backend) throws -> DatabaseLocation {
        switch backend {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return .sqlite(path: folder.appendingPathComponent("tailor.sqlite").path)
        case .postgres:
            guard let server = serverURL else { throw NoServer() }
            let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try PostgresConnection(url: server).execute("CREATE SCHEMA \(schema)")
            let separator = server.contains("?") ? "&" : "?"
            // Named after the schema too, so that a test can find its server's connections.
            return .postgres(url: server + separator + "options=-csearch_path%3D\(schema)&application_name=\(schema)")
        }
    }
}
