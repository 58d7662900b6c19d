import Glibc

/// A SQLite database file in use by this server: locked against other
/// servers, its write-ahead log checkpointed off the writer's path, its
/// readers mapping it into memory.
final class SQLiteFile: Sendable {
    let path: String
    /// Whether the file is temporary (`:memory:` asked for) and removed on close.
    let isTemporary: Bool
    let checkpointer: Checkpointer
    private let lock: FileLock

    /// Opens (creating the file and its folder), locks and migrates the
    /// database, and returns the writer connection with it. `:memory:` is a
    /// temporary file, so that the readers see the same data as the writer.
    static func open(path: String, synchronous: Database.Synchronous) throws -> (SQLiteFile, writer: SQLiteConnection) {
        var file = path
        var temporary = false
        if path == ":memory:" {
            file = "\(temporaryFolder)/tailor-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sqlite"
            temporary = true
        } else if let slash = path.lastIndex(of: "/") {
            try makeFolders(String(path[..<slash]))
        }
        let writer = try SQLiteConnection(path: file)
        // Before anything is written: a second server stops here.
        let lock = try FileLock(path: file)
        do {
            try writer.execute("PRAGMA journal_mode = WAL")
            try writer.execute("PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
            // A log that grew past this while a checkpoint fell behind is cut back
            // when it starts over.
            try writer.execute("PRAGMA journal_size_limit = \(Self.logBytesKept)")
            try SQLiteSchema.migrate(writer)
            let checkpointer = try Checkpointer(path: file, synchronous: synchronous)
            checkpointer.watch(writer)
            return (SQLiteFile(path: file, isTemporary: temporary, checkpointer: checkpointer, lock: lock), writer)
        } catch {
            lock.release()
            throw error
        }
    }

    /// Where a temporary database goes: `TMPDIR`, as for any program, or /tmp.
    private static var temporaryFolder: String {
        guard let folder = getenv("TMPDIR"), folder.pointee != 0 else { return "/tmp" }
        return String(cString: folder)
    }

    /// The size the write-ahead log file is cut back to when it starts over: a
    /// quarter more than a log that asks for a checkpoint (`Checkpointer.askFrames`
    /// frames), so that a log started over as usual is not cut back and grown
    /// again, which would make its next sync write the file's size too.
    static let logBytesKept = Checkpointer.askFrames * Checkpointer.frameBytes * 5 / 4

    private init(path: String, isTemporary: Bool, checkpointer: Checkpointer, lock: FileLock) {
        self.path = path
        self.isTemporary = isTemporary
        self.checkpointer = checkpointer
        self.lock = lock
    }

    /// A read-only connection that maps the database file into memory: SQLite
    /// empties a reader's page cache whenever another connection has written,
    /// so without the mapping every read transaction would copy each page it
    /// touches in again with a system call.
    func openReader() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("PRAGMA mmap_size = \(Self.mappedBytes)")
        return connection
    }

    /// The most of the database file a reader maps.
    static let mappedBytes = 1 << 30

    /// Waits for a checkpoint under way, releases the file for other servers,
    /// and removes a temporary file.
    func close() {
        checkpointer.finish()
        lock.release()
        if isTemporary {
            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        }
    }

    private static func makeFolders(_ folder: String) throws {
        guard !folder.isEmpty else { return }
        var current = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw FileSystemError(call: "mkdir \(current)", errno: errno)
            }
        }
    }
}
