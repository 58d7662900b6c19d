import Glibc

/// A copy of a SQLite database taken while a server may be writing to it.
///
/// A plain copy of the file is not a backup: what was committed since the last
/// checkpoint lives in the write-ahead log beside it, and a copy made during a
/// checkpoint mixes two moments. `VACUUM INTO` reads one snapshot, log
/// included, and writes it out as a new, compact file, while the server goes
/// on writing.
public enum SQLiteBackup {
    public enum Failure: Error, CustomStringConvertible {
        case noDatabase(path: String)
        case destinationExists(path: String)

        public var description: String {
            switch self {
            case .noDatabase(let path): "there is no database at \(path)"
            case .destinationExists(let path): "\(path) exists already; a backup is written only to a new file"
            }
        }
    }

    /// Writes everything committed in the database at `path` as of one moment to
    /// the new file `destination`.
    public static func copy(_ path: String, to destination: String) throws {
        guard access(path, F_OK) == 0 else { throw Failure.noDatabase(path: path) }
        guard access(destination, F_OK) != 0 else { throw Failure.destinationExists(path: destination) }
        try SQLiteConnection(path: path, readOnly: true).run("VACUUM INTO ?", destination)
    }
}
