import Synchronization
import TailorLoop

/// The database of a running server: one writer connection, handed to the
/// event router, and a pool of reader connections for everything else.
///
/// On SQLite, WAL mode lets readers work beside the writer without waiting for
/// it; on PostgreSQL every connection is a session of its own.
public final class Database: Sendable {
    public enum Synchronous: String, Sendable {
        /// SQLite's WAL with `synchronous=NORMAL`: a commit survives a crash of
        /// the process; the last commits can be lost in a power failure.
        case normal
        /// Every commit is synced to disk.
        case full
    }

    public let location: DatabaseLocation
    private let engine: Engine
    private let readers = Mutex<[ThreadConfined<any DatabaseConnection>]>([])
    /// Where the loops' reads run (`readOffLoop`), named `read-0`, `read-1`, ….
    private let readerThreads: ThreadPool

    private enum Engine: Sendable {
        case sqlite(SQLiteFile)
        case postgres(url: String, settings: PostgresSessionSettings)
    }

    /// Opens and migrates the database, and returns the writer connection with
    /// it. A SQLite file that another server already uses is refused
    /// (`DatabaseInUse`); a PostgreSQL database is shared by every server
    /// pointed at it, which follow each other's writes through the change feed.
    /// Each PostgreSQL connection opens with `settings`; the writer's waits for
    /// a lock another server holds last at most `lockWait`.
    public static func open(_ location: DatabaseLocation, synchronous: Synchronous = .normal,
                            settings: PostgresSessionSettings = PostgresSessionSettings(),
                            lockWait: Duration = .seconds(1)) throws -> (Database, writer: any DatabaseConnection) {
        switch location {
        case .sqlite(let path):
            let (file, writer) = try SQLiteFile.open(path: path, synchronous: synchronous)
            return (Database(location: location, engine: .sqlite(file)), writer)
        case .postgres(let url):
            let writer = try PostgresConnection(url: url, settings: settings.waitingForLocks(atMost: lockWait))
            try PostgresSchema.migrate(writer)
            return (Database(location: location, engine: .postgres(url: url, settings: settings)), writer)
        }
    }

    /// A SQLite database with its writer as a SQLite connection, for what only
    /// SQLite has (pragmas, checkpoints).
    static func openSQLite(path: String, synchronous: Synchronous = .normal) throws -> (Database, writer: SQLiteConnection) {
        let (file, writer) = try SQLiteFile.open(path: path, synchronous: synchronous)
        return (Database(location: .sqlite(path: path), engine: .sqlite(file)), writer)
    }

    private init(location: DatabaseLocation, engine: Engine) {
        self.location = location
        self.engine = engine
        readerThreads = ThreadPool(name: "read", count: Self.readerThreadCount(for: engine))
    }

    /// Reads that run at once off the loops. A SQLite read works the CPU (the
    /// file is mapped): one thread per CPU. A PostgreSQL read mostly waits for
    /// its round trip: more threads, each with its own connection.
    private static func readerThreadCount(for engine: Engine) -> Int {
        switch engine {
        case .sqlite: max(ProcessSetup.usableCPUCount, 2)
        case .postgres: max(4 * ProcessSetup.usableCPUCount, 8)
        }
    }

    /// The SQLite file behind this database, if it is one.
    var sqliteFile: SQLiteFile? {
        guard case .sqlite(let file) = engine else { return nil }
        return file
    }

    /// SQLite's checkpoints so far, on their own thread and by the writer, and
    /// the frames in its write-ahead log after the last commit (all 0 on
    /// PostgreSQL, which keeps its own log).
    public var checkpoints: (onOwnThread: Int, byWriter: Int, logFrames: Int) {
        guard let checkpointer = sqliteFile?.checkpointer else { return (0, 0, 0) }
        let done = checkpointer.done
        return (done.onOwnThread, done.byWriter, checkpointer.logFrames)
    }

    /// Runs `body` with a reader connection from the pool (opened when none is
    /// free), in one read transaction: every query of `body` sees the same
    /// snapshot, and on SQLite the connection's page cache, which SQLite empties
    /// when a transaction starts after another connection wrote, is checked
    /// once rather than at every statement.
    public func read<T>(_ body: (Store) throws -> T) throws -> T {
        let box = try readers.withLock { $0.popLast() } ?? ThreadConfined(try openReader())
        defer {
            box.handOver()
            readers.withLock { $0.append(box) }
        }
        do {
            return try box.value.readTransaction { try body(Store(box.value)) }
        } catch let failure as any DatabaseFailure where failure.isConnectionLost {
            // A pooled connection learns that the database restarted at its
            // first use after: a read changes nothing, so it is made once more,
            // on the connection opened anew.
            return try box.value.readTransaction { try body(Store(box.value)) }
        }
    }

    /// `read` for a task on a loop thread: on a reader thread, while the task
    /// waits and the loop serves its other connections. Even a SQLite read
    /// through mapped memory may wait for the disk, or walk a long chat.
    public func readOffLoop<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await readerThreads.run { try self.read(body) }
    }

    private func openReader() throws -> any DatabaseConnection {
        switch engine {
        case .sqlite(let file): try file.openReader()
        case .postgres(let url, let settings): try PostgresConnection(url: url, settings: settings)
        }
    }

    /// Closes the pooled readers, then lets the database go: another server may
    /// use it from now on. After the writer's last write.
    public func close() {
        readers.withLock { $0.removeAll() }
        if case .sqlite(let file) = engine { file.close() }
    }
}

