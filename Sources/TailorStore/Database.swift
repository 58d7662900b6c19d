import Glibc
import Synchronization

/// The SQLite database of a running server: one writer connection, handed to the
/// event router, and a pool of read-only connections for everything else.
///
/// WAL mode lets readers work beside the writer without waiting for it.
public final class Database: Sendable {
    public enum Synchronous: String, Sendable {
        /// WAL with `synchronous=NORMAL`: a commit survives a crash of the process;
        /// the last commits can be lost in a power failure.
        case normal
        /// Every commit is synced to disk.
        case full
    }

    public let path: String
    /// Whether the file is temporary (`:memory:` asked for) and removed on close.
    public let isTemporary: Bool
    private let readers = Mutex<[ConnectionBox]>([])
    let checkpointer: Checkpointer

    /// Opens (creating the file and its folder) and migrates the database, and
    /// returns the writer connection with it. `:memory:` is a temporary file, so
    /// that the readers see the same data as the writer.
    public static func open(path: String, synchronous: Synchronous = .normal) throws -> (Database, writer: SQLiteConnection) {
        var file = path
        var temporary = false
        if path == ":memory:" {
            file = "/tmp/tailor-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).sqlite"
            temporary = true
        } else if let slash = path.lastIndex(of: "/") {
            try makeFolders(String(path[..<slash]))
        }
        let writer = try SQLiteConnection(path: file)
        try writer.execute("PRAGMA journal_mode = WAL")
        try writer.execute("PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
        // A log that grew past this while a checkpoint fell behind is cut back
        // when it starts over.
        try writer.execute("PRAGMA journal_size_limit = \(Self.logBytesKept)")
        try Schema.migrate(writer)
        let checkpointer = try Checkpointer(path: file, synchronous: synchronous)
        checkpointer.watch(writer)
        return (Database(path: file, isTemporary: temporary, checkpointer: checkpointer), writer)
    }

    /// The size the write-ahead log file is cut back to when it starts over.
    static let logBytesKept = 16 << 20

    private init(path: String, isTemporary: Bool, checkpointer: Checkpointer) {
        self.path = path
        self.isTemporary = isTemporary
        self.checkpointer = checkpointer
    }

    /// Runs `body` with a read-only connection from the pool (opened when none is
    /// free), in one read transaction: every query of `body` sees the same
    /// snapshot, and the connection's page cache, which SQLite empties when a
    /// transaction starts after another connection wrote, is checked once rather
    /// than at every statement.
    public func read<T>(_ body: (Store) throws -> T) throws -> T {
        let box = try readers.withLock { $0.popLast() } ?? ConnectionBox(try openReader())
        defer { readers.withLock { $0.append(box) } }
        return try box.connection.readTransaction { try body(Store(box.connection)) }
    }

    /// A read-only connection that maps the database file into memory: SQLite
    /// empties a reader's page cache whenever another connection has written,
    /// so without the mapping every read transaction would copy each page it
    /// touches in again with a system call.
    private func openReader() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("PRAGMA mmap_size = \(Self.mappedBytes)")
        return connection
    }

    /// The most of the database file a reader maps.
    static let mappedBytes = 1 << 30

    /// Closes the pooled readers and removes a temporary file.
    public func close() {
        checkpointer.finish()
        readers.withLock { $0.removeAll() }
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
                throw SQLiteError(code: 14, connection: nil, sql: "mkdir \(current)")
            }
        }
    }
}

/// A connection handed between threads and used by one at a time (it is opened
/// NOMUTEX), which is why the box may be `@unchecked Sendable`.
final class ConnectionBox: @unchecked Sendable {
    let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) {
        self.connection = connection
    }
}
