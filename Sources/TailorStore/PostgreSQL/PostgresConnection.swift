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
///
/// Every wait for the server is a round trip, and on a busy machine each one
/// waits for the server's process to be scheduled. So a transaction's `BEGIN`
/// is not sent alone: it goes with the transaction's first statement, and a
/// statement run with `firstCommitting` takes the `COMMIT` with it (libpq's
/// pipeline mode). A write of one statement and its feed entry is then two
/// round trips instead of four.
public final class PostgresConnection: DatabaseConnection {
    /// nil while the server cannot be reached: a reconnection failed.
    private var handle: OpaquePointer?
    private let url: String
    public var engine: DatabaseEngine { .postgres }
    /// What each SQL text was prepared as, by the text the store wrote.
    private var statements: [String: PreparedStatement] = [:]
    private var transactionState = TransactionState.none

    /// Where the connection is in a transaction run by `transaction` or `readTransaction`.
    private enum TransactionState: Equatable {
        case none
        /// Begun for the caller, not yet on the server: this statement goes
        /// with the first one.
        case unsent(begin: String)
        case open
        /// Committed with its last statement: nothing is left to send.
        case committed
    }

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
        // Every statement here is small and by index. Compiling one costs
        // milliseconds, and PostgreSQL does it whenever the planner's estimate
        // is large: on a table not yet analyzed (a new feed in its first
        // minute) the feed's read took 7–60 ms to compile and 0.1 ms to run.
        let settings = PQexec(handle, "SET jit = off")
        defer { PQclear(settings) }
        guard PQresultStatus(settings) == PGRES_COMMAND_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError.connection(message)
        }
        return handle
    }

    /// The connection, opened anew if it broke: what was prepared on it is gone.
    private func connected() throws -> OpaquePointer {
        if let handle {
            if PQstatus(handle) == CONNECTION_OK { return handle }
            disconnect()
        }
        let fresh = try Self.connect(url)
        handle = fresh
        return fresh
    }

    /// Closes the connection; what was prepared on it goes with it.
    private func disconnect() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements.removeAll()
    }

    /// What libpq said last on this connection.
    private var lastError: String {
        handle.map { String(cString: PQerrorMessage($0)) } ?? "not connected"
    }

    /// Runs one or more statements without parameters (schema, settings).
    public func execute(_ sql: String) throws {
        var text = sql
        if case .unsent(let begin) = transactionState {
            // Several statements in one text run in one round trip.
            text = begin + "; " + sql
            transactionState = .open
        }
        let result = PQexec(try connected(), text)
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
        try firstRow(of: try executePrepared(sql, values), row)
    }

    /// Sends the commit with the statement, in the same round trip.
    public func firstCommitting<Row>(_ sql: String, binding values: [any DatabaseBindable],
                                     row: (any DatabaseRow) throws -> Row) throws -> Row? {
        try firstRow(of: try executePrepared(sql, values, committing: true), row)
    }

    /// The first row of `result`, mapped; the result is freed.
    private func firstRow<Row>(of result: OpaquePointer, _ row: (any DatabaseRow) throws -> Row) throws -> Row? {
        defer { PQclear(result) }
        return PQntuples(result) > 0 ? try row(PostgresRow(result: result, row: 0)) : nil
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(body, begin: "BEGIN")
    }

    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(body, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT event")
        do {
            let result = try body()
            try execute("RELEASE event")
            return result
        } catch {
            rollBack("ROLLBACK TO event; RELEASE event")
            throw error
        }
    }

    /// Runs `body` in a transaction begun by `begin`: committed if it
    /// returns, rolled back if it throws. A body that ran no statement sends
    /// nothing at all.
    private func inTransaction<T>(_ body: () throws -> T, begin: String) throws -> T {
        transactionState = .unsent(begin: begin)
        defer { transactionState = .none }
        do {
            let result = try body()
            if case .open = transactionState { try execute("COMMIT") }
            return result
        } catch {
            if case .open = transactionState { rollBack("ROLLBACK") }
            throw error
        }
    }

    public func finishWriting() throws {}

    // MARK: Notifications

    /// The connection's socket, to wait on for notifications.
    public var socket: Int32 { handle.map(PQsocket) ?? -1 }

    /// The payloads of the notifications the server sent, those that came
    /// with earlier answers included; a lost connection throws.
    public func takeNotifications() throws -> [String] {
        guard let handle, PQconsumeInput(handle) == 1 else { throw PostgresError.connection(lastError) }
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }

    /// Undoes after a failure. When even that fails the connection is broken,
    /// and the next use opens it anew; the first failure is the one to report.
    private func rollBack(_ sql: String) {
        guard let handle else { return }
        let result = PQexec(handle, sql)
        PQclear(result)
    }

    /// Runs a prepared statement, with the transaction's unsent `BEGIN`
    /// before it and, when `committing` in a transaction, `COMMIT` after it.
    private func executePrepared(_ sql: String, _ values: [any DatabaseBindable], committing: Bool = false) throws -> OpaquePointer {
        let handle = try connected()
        let statement = try prepared(sql, parameterCount: values.count, on: handle)
        let parameters = PostgresParameters(values)
        defer { parameters.deallocate() }
        var begin: String?
        if case .unsent(let text) = transactionState { begin = text }
        let commit = committing && transactionState != .none
        guard begin != nil || commit else {
            let result = PQexecPrepared(handle, statement.name, Int32(values.count), parameters.values, parameters.lengths,
                                        parameters.formats, 0)
            return try checked(result, sql: sql)
        }
        if begin != nil { transactionState = .open }
        let results: [OpaquePointer?]
        do {
            results = try PostgresPipeline.exchange(on: handle) { pipeline in
                if let begin { try pipeline.send(begin) }
                try pipeline.send(prepared: statement.name, parameters)
                if commit { try pipeline.send("COMMIT") }
            }
        } catch {
            // Part of an exchange may be unread: the connection starts anew.
            disconnect()
            throw error
        }
        let texts = [begin, sql, commit ? "COMMIT" : nil].compactMap { $0 }
        let statementIndex = begin == nil ? 0 : 1
        defer {
            for (index, result) in results.enumerated() where index != statementIndex { PQclear(result) }
        }
        do {
            // In order: after the first failure the server skipped the rest.
            for (result, text) in zip(results, texts) { try check(result, sql: text) }
        } catch {
            PQclear(results[statementIndex])
            throw error
        }
        if commit { transactionState = .committed }
        return results[statementIndex]!
    }

    /// Takes `result` if it succeeded; frees it and throws if not.
    private func checked(_ result: OpaquePointer?, sql: String) throws -> OpaquePointer {
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
