import Glibc

/// A copy of a SQLite database taken while a server may be writing to it.
///
/// A plain copy of the file is not a backup: what was committed since the last
/// checkpoint lives in the write-ahead log beside it, and a copy made during a
/// checkpoint mixes two moments. `VACUUM INTO` reads one snapshot, log
/// included, and writes it out as a new, compact file, while the server goes
/// on writing.
///
/// A backup must never mislead the one who restores it, so nothing is at the
/// destination unless it is a whole, checked copy of a Tailor database: the
/// copy is written to a new file beside the destination, checked with
/// `integrity_check` and its schema version, and only then linked in under the
/// destination's name (which `link` never overwrites, nor follows when it is a
/// symbolic link). A failure removes the new file and leaves the destination
/// as it was: absent.
public enum SQLiteBackup {
    public enum Failure: Error, CustomStringConvertible {
        case noDatabase(path: String)
        case emptyDatabase(path: String)
        case notTailor(path: String, reason: String)
        case destinationExists(path: String)
        case destinationIsLink(path: String)
        case copyDamaged(reason: String)
        case cannotPlace(path: String, errno: Int32)

        public var description: String {
            switch self {
            case .noDatabase(let path): "there is no database at \(path)"
            case .emptyDatabase(let path): "\(path) is empty: there is nothing to back up"
            case .notTailor(let path, let reason): "\(path) is not a Tailor database: \(reason)"
            case .destinationExists(let path): "\(path) exists already; a backup is written only to a new file"
            case .destinationIsLink(let path): "\(path) is a symbolic link; a backup is written only to a new file of its own"
            case .copyDamaged(let reason): "the copy did not pass its check: \(reason)"
            case .cannotPlace(let path, let errno): "the checked copy could not be put at \(path): \(String(cString: strerror(errno)))"
            }
        }
    }

    /// Writes everything committed in the database at `path` as of one moment to
    /// the new file `destination`, and answers the copy's schema version.
    @discardableResult
    public static func copy(_ path: String, to destination: String) throws -> Int {
        var destinationInfo = stat()
        if lstat(destination, &destinationInfo) == 0 {
            throw (destinationInfo.st_mode & S_IFMT) == S_IFLNK ? Failure.destinationIsLink(path: destination)
                                                                 : Failure.destinationExists(path: destination)
        }
        let version = try tailorVersion(of: path)
        let partial = destination + ".partial-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        do {
            try SQLiteConnection(path: path, readOnly: true).run("VACUUM INTO ?", partial)
            try check(partial, version: version)
            guard link(partial, destination) == 0 else {
                throw errno == EEXIST ? Failure.destinationExists(path: destination) : Failure.cannotPlace(path: destination, errno: errno)
            }
        } catch {
            unlink(partial)
            throw error
        }
        unlink(partial)
        return version
    }

    /// The schema version of the Tailor database at `path`; a file that is
    /// missing, empty, not SQLite or no Tailor database is refused.
    static func tailorVersion(of path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw Failure.noDatabase(path: path) }
        guard info.st_size > 0 else { throw Failure.emptyDatabase(path: path) }
        let connection: SQLiteConnection
        let version: Int
        let users: Int?
        do {
            connection = try SQLiteConnection(path: path, readOnly: true)
            version = try connection.pragma("user_version")
            users = try connection.first("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('users', 'messages', 'orders')",
                                         binding: []) { $0.int(0) }
        } catch {
            throw Failure.notTailor(path: path, reason: "\(error)")
        }
        guard (1...SQLiteSchema.currentVersion).contains(version), users == 3 else {
            throw Failure.notTailor(path: path, reason: "its schema version is \(version), and this program knows 1 to \(SQLiteSchema.currentVersion)")
        }
        return version
    }

    /// Refuses a copy that SQLite finds damaged or that is not of `version`.
    private static func check(_ copy: String, version: Int) throws {
        let connection = try SQLiteConnection(path: copy, readOnly: true)
        let verdict = try connection.first("PRAGMA integrity_check", binding: []) { $0.text(0) }
        guard verdict == "ok" else { throw Failure.copyDamaged(reason: verdict ?? "no verdict") }
        let copied = try connection.pragma("user_version")
        guard copied == version else { throw Failure.copyDamaged(reason: "schema version \(copied), not \(version)") }
    }
}
