import CLibPQ
import Glibc

/// One connection to a PostgreSQL server through libpq, used by one thread at a
/// time. Its calls block that thread until the server answers: the server
/// runs them on the writer's queue and the publisher lanes, and on the threads
/// that read for requests.
///
/// Statements are prepared on the server once per SQL text and reused. A
/// connection that broke (the server restarted, the network dropped) reconnects
/// at its next use; the call that found it broken fails with an error that may pass.
public final class PostgresConnection: DatabaseConnection {
    /// nil while the server cannot be reached: a reconnection failed.
    private var handle: OpaquePointer?
    private let url: String
    public var engine: DatabaseEngine { .postgres }
    /// What each SQL text was prepared as, by the text the store wrote.
    private var statements: [String: PreparedStatement] = [:]

    private struct PreparedStatement {
        let name: String
        let sql: String
    }

    public init(url: String) throws {
        self.url = url
        handle = try Self.connect(url)
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    private static func connect(_ url: String) throws -> OpaquePointer {
        guard let handle = PQconnectdb(url) else { throw PostgresError.connection("libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError.connection(message)
        }
        // Notices ("relation already exists, skipping") are not errors: libpq
        // would print them on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        return handle
    }

    /// The connection, opened anew if it broke: what was prepared on it is gone.
    private func connected() throws -> OpaquePointer {
        if let handle {
            if PQstatus(handle) == CONNECTION_OK { return handle }
            PQfinish(handle)
            self.handle = nil
            statements.removeAll()
        }
        let fresh = try Self.connect(url)
        handle = fresh
        return fresh
    }

    /// What libpq said last on this connection.
    private var lastError: String {
        handle.map { String(cString: PQerrorMessage($0)) } ?? "not connected"
    }

    /// Runs one or more statements without parameters (schema, settings).
    public func execute(_ sql: String) throws {
        let result = PQexec(try connected(), sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    @discardableResult
    public func run(_ sql: String, binding values: [any DatabaseBindable]) throws -> Int {
        let result = try executePrepared(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    public func query<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> [Row] {
        let result = try executePrepared(sql, values)
        defer { PQclear(result) }
        let count = PQntuples(result)
        var rows: [Row] = []
        rows.reserveCapacity(Int(count))
        for index in 0..<count {
            rows.append(try row(PostgresRow(result: result, row: index)))
        }
        return rows
    }

    public func first<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> Row? {
        let result = try executePrepared(sql, values)
        defer { PQclear(result) }
        return PQntuples(result) > 0 ? try row(PostgresRow(result: result, row: 0)) : nil
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try bracketed(body, begin: "BEGIN", end: "COMMIT", undo: "ROLLBACK")
    }

    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try bracketed(body, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", end: "COMMIT", undo: "ROLLBACK")
    }

    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try bracketed(body, begin: "SAVEPOINT event", end: "RELEASE event", undo: "ROLLBACK TO event; RELEASE event")
    }

    /// Runs `body` between `begin` and `end`, or `undo` if it throws.
    private func bracketed<T>(_ body: () throws -> T, begin: String, end: String, undo: String) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute(end)
            return result
        } catch {
            rollBack(undo)
            throw error
        }
    }

    public func finishWriting() throws {}

    // MARK: Notifications

    /// The connection's socket, to wait on for notifications.
    public var socket: Int32 { handle.map(PQsocket) ?? -1 }

    /// Reads what the server sent and counts the notifications in it; a lost
    /// connection throws.
    public func takeNotifications() throws -> Int {
        guard let handle, PQconsumeInput(handle) == 1 else { throw PostgresError.connection(lastError) }
        var count = 0
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
            count += 1
        }
        return count
    }

    /// Undoes after a failure. When even that fails the connection is broken,
    /// and the next use opens it anew; the first failure is the one to report.
    private func rollBack(_ sql: String) {
        guard let handle else { return }
        let result = PQexec(handle, sql)
        PQclear(result)
    }

    private func executePrepared(_ sql: String, _ values: [any DatabaseBindable]) throws -> OpaquePointer {
        let handle = try connected()
        let statement = try prepared(sql, parameterCount: values.count, on: handle)
        let parameters = PostgresParameters(values)
        defer { parameters.deallocate() }
        let result = PQexecPrepared(handle, statement.name, Int32(values.count), parameters.values, parameters.lengths,
                                    parameters.formats, 0)
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result!
    }

    private func prepared(_ sql: String, parameterCount: Int, on handle: OpaquePointer) throws -> PreparedStatement {
        if let statement = statements[sql] { return statement }
        let statement = PreparedStatement(name: "s\(statements.count)", sql: PostgresSQL.translate(sql))
        let result = PQprepare(handle, statement.name, statement.sql, 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        statements[sql] = statement
        return statement
    }

    private func check(_ result: OpaquePointer?, sql: String) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            guard let result else { throw PostgresError.connection(lastError) }
            let field = { (code: UInt8) -> String? in
                PQresultErrorField(result, Int32(code)).map { String(cString: $0) }
            }
            guard let state = field(UInt8(ascii: "C")) else {
                // No SQLSTATE: libpq itself failed, most often a lost connection.
                throw PostgresError.connection(lastError)
            }
            throw PostgresError(sqlState: state, message: field(UInt8(ascii: "M")) ?? "", sql: sql)
        }
    }
}

/// A statement's parameters as libpq takes them: integers and texts as text,
/// byte strings in binary, each in memory of its own until the call returns.
private struct PostgresParameters {
    let values: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let lengths: UnsafeMutablePointer<Int32>
    let formats: UnsafeMutablePointer<Int32>
    private let count: Int

    init(_ bound: [any DatabaseBindable]) {
        count = bound.count
        values = .allocate(capacity: max(1, count))
        lengths = .allocate(capacity: max(1, count))
        formats = .allocate(capacity: max(1, count))
        for (index, value) in bound.enumerated() {
            lengths[index] = 0
            formats[index] = 0
            switch value.databaseValue {
            case .integer(let number): values[index] = Self.copy(String(number))
            case .real(let number): values[index] = Self.copy(String(number))
            case .text(let text): values[index] = Self.copy(text)
            case .blob(let bytes):
                let memory = malloc(max(1, bytes.count))!
                bytes.withUnsafeBytes { if let start = $0.baseAddress { memory.copyMemory(from: start, byteCount: $0.count) } }
                values[index] = UnsafePointer(memory.assumingMemoryBound(to: CChar.self))
                lengths[index] = Int32(bytes.count)
                formats[index] = 1
            case .null: values[index] = nil
            }
        }
    }

    private static func copy(_ text: String) -> UnsafePointer<CChar> {
        UnsafePointer(strdup(text)!)
    }

    func deallocate() {
        for index in 0..<count {
            if let value = values[index] { free(UnsafeMutablePointer(mutating: value)) }
        }
        values.deallocate()
        lengths.deallocate()
        formats.deallocate()
    }
}
