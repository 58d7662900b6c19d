import CLibPQ
import Glibc

/// One connection to a PostgreSQL server through libpq, used by one thread at a
/// time. Its calls block that thread until the server answers: the server
/// runs them on the writer's queue and the lanes, and on the threads
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
/// round trips instead of four. Statements queued with `firstLater` and
/// `runLater` wait for the next exchange and go in it too: a batch of events
/// sends all its statements at once and reads their answers after.
///
/// The round trips themselves (the pipeline, preparing, reading answers) are
/// in `PostgresConnection+Exchange`, which shares this state.
public final class PostgresConnection: DatabaseConnection {
    /// nil while the server cannot be reached: a reconnection failed.
    var handle: OpaquePointer?
    private let url: String
    private let settings: PostgresSessionSettings
    public var engine: DatabaseEngine { .postgres }
    /// What each SQL text was prepared as, by the text the store wrote.
    var statements: [String: PreparedStatement] = [:]
    /// Statements kept prepared: one per text the store wrote.
    var preparedStatementCount: Int { statements.count }
    var transactionState = TransactionState.none
    /// Statements whose answers can wait, oldest first: sent with the next exchange.
    var queued: [QueuedStatement] = []

    /// Where the connection is in a transaction run by `transaction` or `readTransaction`.
    enum TransactionState: Equatable {
        case none
        /// Begun for the caller, not yet on the server: this statement goes
        /// with the first one.
        case unsent(begin: String)
        case open
        /// Committed with its last statement: nothing is left to send.
        case committed
    }

    struct PreparedStatement {
        let name: String
        let sql: String
    }

    /// A statement and its parameters, as the store wrote them.
    struct Statement {
        let sql: String
        let values: [any DatabaseBindable]
    }

    /// A statement queued by `firstLater` or `runLater`, and what takes its
    /// answer: a result (which it frees) or the failure that stopped it.
    struct QueuedStatement {
        let statement: Statement
        let answer: (Result<OpaquePointer, any Error>) -> Void
    }

    /// Where a queued statement's answer waits until it is read.
    private final class Answer<Value> {
        var result: Result<Value, any Error>?

        func value() throws -> Value {
            guard let result else { preconditionFailure("a queued statement's answer was read before it was sent") }
            return try result.get()
        }
    }

    public init(url: String, settings: PostgresSessionSettings = PostgresSessionSettings()) throws {
        self.url = url
        self.settings = settings
        handle = try Self.connect(url, settings)
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    private static func connect(_ url: String, _ settings: PostgresSessionSettings) throws -> OpaquePointer {
        // The URL comes last: its own options override the settings' (libpq keeps the last value of a key).
        let options = settings.connectionOptions + [("dbname", url)]
        let keys = options.map { strdup($0.key) }
        let values = options.map { strdup($0.value) }
        defer { (keys + values).forEach { free($0) } }
        let connection = (keys + [nil]).withUnsafeBufferPointer { keys in
            (values + [nil]).withUnsafeBufferPointer { values in
                keys.withMemoryRebound(to: UnsafePointer<CChar>?.self) { keys in
                    values.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                        PQconnectdbParams(keys.baseAddress, values.baseAddress, 1)
                    }
                }
            }
        }
        guard let handle = connection else { throw PostgresError.connection("libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError.connection(message)
        }
        // Notices ("relation already exists, skipping") are not errors: libpq
        // would print them on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        let applied = PQexec(handle, settings.statements)
        defer { PQclear(applied) }
        guard PQresultStatus(applied) == PGRES_COMMAND_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError.connection(message)
        }
        return handle
    }

    /// The connection, opened anew if it broke: what was prepared on it is gone.
    func connected() throws -> OpaquePointer {
        if let handle {
            if PQstatus(handle) == CONNECTION_OK { return handle }
            disconnect()
        }
        let fresh = try Self.connect(url, settings)
        handle = fresh
        return fresh
    }

    /// Closes the connection; what was prepared on it goes with it.
    func disconnect() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements.removeAll()
    }

    /// What libpq said last on this connection.
    var lastError: String {
        handle.map { String(cString: PQerrorMessage($0)) } ?? "not connected"
    }

    /// Runs one or more statements without parameters (schema, settings).
    public func execute(_ sql: String) throws {
        // What was queued runs first, in the order asked.
        if !queued.isEmpty { _ = try exchange(nil) }
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
        Self.changedRows(of: try executePrepared(Statement(sql: sql, values: values)))
    }

    public func query<Row>(_ sql: String, binding values: [any DatabaseBindable], row: (any DatabaseRow) throws -> Row) throws -> [Row] {
        let result = try executePrepared(Statement(sql: sql, values: values))
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
        try Self.firstRow(of: try executePrepared(Statement(sql: sql, values: values)), row)
    }

    /// Sends the commit with the statement, in the same round trip.
    public func firstCommitting<Row>(_ sql: String, binding values: [any DatabaseBindable],
                                     row: (any DatabaseRow) throws -> Row) throws -> Row? {
        try Self.firstRow(of: try executePrepared(Statement(sql: sql, values: values), committing: true), row)
    }

    /// Sends the commit with the statement and, after it, `apart` in a
    /// transaction of its own, all in the same round trip; `apart` runs only
    /// if the commit succeeded, and whether it ran is not told.
    public func firstCommitting<Row>(_ sql: String, binding values: [any DatabaseBindable],
                                     thenApart apart: (sql: String, values: [any DatabaseBindable]),
                                     row: (any DatabaseRow) throws -> Row) throws -> Row? {
        try Self.firstRow(of: try executePrepared(Statement(sql: sql, values: values), committing: true,
                                                  thenApart: Statement(sql: apart.sql, values: apart.values)), row)
    }

    public func firstLater<Row>(_ sql: String, binding values: [any DatabaseBindable],
                                row: @escaping (any DatabaseRow) throws -> Row) -> Later<Row?> {
        queue(Statement(sql: sql, values: values)) { result in try Self.firstRow(of: result, row) }
    }

    public func runLater(_ sql: String, binding values: [any DatabaseBindable]) -> Later<Int> {
        queue(Statement(sql: sql, values: values)) { result in Self.changedRows(of: result) }
    }

    /// Queues `statement`; its answer is what `read` makes of its result
    /// (and frees). Reading the answer first sends the queue, if unsent.
    private func queue<Value>(_ statement: Statement, read: @escaping (OpaquePointer) throws -> Value) -> Later<Value> {
        let answer = Answer<Value>()
        queued.append(QueuedStatement(statement: statement) { result in
            answer.result = result.flatMap { pointer in Result { try read(pointer) } }
        })
        return Later { [self] in
            // A failed exchange answers every statement it took: the answer says.
            if answer.result == nil {
                do { _ = try exchange(nil) } catch { /* each answer holds what came to its statement */ }
            }
            return try answer.value()
        }
    }

    /// How many rows the statement of `result` changed; the result is freed.
    private static func changedRows(of result: OpaquePointer) -> Int {
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// The first row of `result`, mapped; the result is freed.
    private static func firstRow<Row>(of result: OpaquePointer, _ row: (any DatabaseRow) throws -> Row) throws -> Row? {
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
            discardQueued()
            rollBack("ROLLBACK TO event; RELEASE event")
            throw error
        }
    }

    /// Runs `body` in a transaction begun by `begin`: committed if it
    /// returns, rolled back if it throws. A body that ran no statement sends
    /// nothing at all; statements it queued and never read go with the commit.
    private func inTransaction<T>(_ body: () throws -> T, begin: String) throws -> T {
        transactionState = .unsent(begin: begin)
        defer { transactionState = .none }
        do {
            let result = try body()
            if !queued.isEmpty { _ = try exchange(nil, committing: true) }
            if case .open = transactionState { try execute("COMMIT") }
            return result
        } catch {
            discardQueued()
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
        try takeNotificationsWithChannels().map(\.payload)
    }

    /// The payloads of the notifications that come within `nanoseconds`
    /// (none when none came), those already received included.
    public func waitForNotifications(atMost nanoseconds: UInt64) throws -> [String] {
        var waiting = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        _ = poll(&waiting, 1, Int32(min(nanoseconds / 1_000_000, UInt64(Int32.max))))
        return try takeNotifications()
    }

    /// The notifications the server sent, each with the channel it came on.
    public func takeNotificationsWithChannels() throws -> [(channel: String, payload: String)] {
        guard let handle, PQconsumeInput(handle) == 1 else { throw PostgresError.connection(lastError) }
        var notifications: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            notifications.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return notifications
    }

    /// Undoes after a failure. When even that fails the connection is broken,
    /// and the next use opens it anew; the first failure is the one to report.
    private func rollBack(_ sql: String) {
        guard let handle else { return }
        let result = PQexec(handle, sql)
        PQclear(result)
    }
}
