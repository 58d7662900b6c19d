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
            return .postgres(url: server + separator + "options=-csearch_path%3D\(schema)")
        }
    }
}
