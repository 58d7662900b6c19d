import CLibPQ

/// A connection's exchanges with the server: what is queued, the statement
/// asked for, and a transaction's `BEGIN` and `COMMIT` sent in one round
/// trip (libpq's pipeline mode), each answer checked; and the statements
/// prepared once per text.
extension PostgresConnection {
    /// Runs a prepared statement after what is queued (see `exchange`).
    func executePrepared(_ statement: Statement, committing: Bool = false, thenApart apart: Statement? = nil) throws -> OpaquePointer {
        guard let result = try exchange(statement, committing: committing, thenApart: apart) else {
            preconditionFailure("an exchange with a statement answers it")
        }
        return result
    }

    /// Sends the transaction's unsent `BEGIN`, the queued statements,
    /// `statement`, and `COMMIT` when `committing` in a transaction, in one
    /// round trip; returns the result of `statement`. The queued statements'
    /// answers are given to them; the first failure is also thrown, since the
    /// server skipped everything after it. With nothing to send but a
    /// `BEGIN`, nothing is sent. `apart` goes after the `COMMIT`, in a
    /// transaction of its own, and runs only if everything before succeeded;
    /// its own failure is not the exchange's: the commit stands.
    func exchange(_ statement: Statement?, committing: Bool = false, thenApart apart: Statement? = nil) throws -> OpaquePointer? {
        let queue = queued
        queued.removeAll()
        var answered = 0
        do {
            let handle = try connected()
            var begin: String?
            if case .unsent(let text) = transactionState { begin = text }
            let commit = committing && transactionState != .none
            if let statement, queue.isEmpty, begin == nil, !commit {
                // Alone: no pipeline needed.
                let prepared = try prepared(statement.sql, on: handle)
                let parameters = PostgresParameters(statement.values)
                defer { parameters.deallocate() }
                let result = PQexecPrepared(handle, prepared.name, Int32(parameters.count), parameters.values, parameters.lengths,
                                            parameters.formats, 0)
                return try checked(result, sql: statement.sql)
            }
            let statements = queue.map(\.statement) + (statement.map { [$0] } ?? [])
            if statements.isEmpty && !commit { return nil }
            let names = try statements.map { try prepared($0.sql, on: handle).name }
            let parameters = statements.map { PostgresParameters($0.values) }
            defer { parameters.forEach { $0.deallocate() } }
            let sentApart = commit ? apart : nil
            let apartName = try sentApart.map { try prepared($0.sql, on: handle).name }
            let apartParameters = sentApart.map { PostgresParameters($0.values) }
            defer { apartParameters?.deallocate() }
            if begin != nil { transactionState = .open }
            let results: [OpaquePointer?]
            do {
                results = try PostgresPipeline.exchange(on: handle) { pipeline in
                    if let begin { try pipeline.send(begin) }
                    for (name, parameters) in zip(names, parameters) { try pipeline.send(prepared: name, parameters) }
                    if commit { try pipeline.send("COMMIT") }
                    if let apartName, let apartParameters { try pipeline.send(prepared: apartName, apartParameters) }
                }
            } catch {
                // Part of an exchange may be unread: the connection starts anew.
                disconnect()
                throw error
            }
            // In order: after the first failure the server skipped the rest.
            var failure: (any Error)?
            var taken = 0
            func take(_ sql: String) -> Result<OpaquePointer, any Error> {
                let result = results[taken]
                taken += 1
                if let failure {
                    PQclear(result)
                    return .failure(failure)
                }
                let checked = Result { try self.checked(result, sql: sql) }
                if case .failure(let error) = checked { failure = error }
                return checked
            }
            if let begin, case .success(let result) = take(begin) { PQclear(result) }
            for queuedStatement in queue {
                queuedStatement.answer(take(queuedStatement.statement.sql))
                answered += 1
            }
            let statementResult = statement.map { take($0.sql) }
            if commit, case .success(let result) = take("COMMIT") { PQclear(result) }
            // Committed or not, what `apart` answered changes nothing of it.
            if sentApart != nil { PQclear(results[taken]) }
            if let failure {
                if case .success(let result) = statementResult { PQclear(result) }
                throw failure
            }
            if commit { transactionState = .committed }
            return try statementResult?.get()
        } catch {
            for queuedStatement in queue.dropFirst(answered) { queuedStatement.answer(.failure(error)) }
            throw error
        }
    }

    /// Queued statements that will not be sent: their transaction was undone.
    func discardQueued() {
        let queue = queued
        queued.removeAll()
        for queuedStatement in queue { queuedStatement.answer(.failure(PostgresError.notSent(queuedStatement.statement.sql))) }
    }

    /// Takes `result` if it succeeded; frees it and throws if not.
    func checked(_ result: OpaquePointer?, sql: String) throws -> OpaquePointer {
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result!
    }

    func prepared(_ sql: String, on handle: OpaquePointer) throws -> PreparedStatement {
        if let statement = statements[sql] { return statement }
        let statement = PreparedStatement(name: "s\(statements.count)", sql: PostgresSQL.translate(sql))
        let result = PQprepare(handle, statement.name, statement.sql, 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        statements[sql] = statement
        return statement
    }

    func check(_ result: OpaquePointer?, sql: String) throws {
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
