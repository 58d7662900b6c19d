import CLibPQ

/// Statements sent to the server together and their results read after, in
/// the order sent: one round trip for all of them (libpq's pipeline mode).
/// The server runs them one after the other; after one fails it skips the
/// rest, whose results say "aborted".
struct PostgresPipeline {
    private let handle: OpaquePointer
    private var sent = 0

    private init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    /// Sends what `fill` sends and returns one result per statement, each
    /// for the caller to check and free. A throw means the exchange broke off
    /// with part of it unread: the connection is no longer usable.
    static func exchange(on handle: OpaquePointer, _ fill: (inout PostgresPipeline) throws -> Void) throws -> [OpaquePointer?] {
        guard PQenterPipelineMode(handle) == 1 else { throw PostgresError.connection(Self.lastError(handle)) }
        var pipeline = PostgresPipeline(handle)
        try fill(&pipeline)
        guard PQpipelineSync(handle) == 1 else { throw PostgresError.connection(Self.lastError(handle)) }
        return try pipeline.readResults()
    }

    /// Queues a statement without parameters.
    mutating func send(_ sql: String) throws {
        guard PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1 else {
            throw PostgresError.connection(Self.lastError(handle))
        }
        sent += 1
    }

    /// Queues a prepared statement.
    mutating func send(prepared name: String, _ parameters: PostgresParameters) throws {
        guard PQsendQueryPrepared(handle, name, Int32(parameters.count), parameters.values, parameters.lengths,
                                  parameters.formats, 0) == 1 else {
            throw PostgresError.connection(Self.lastError(handle))
        }
        sent += 1
    }

    /// Each statement's result, then the end of the exchange, after which the
    /// connection leaves pipeline mode.
    private func readResults() throws -> [OpaquePointer?] {
        var results: [OpaquePointer?] = []
        do {
            for _ in 0..<sent {
                // A statement's result, then nil: the end of that statement.
                guard let result = PQgetResult(handle) else { throw PostgresError.connection(Self.lastError(handle)) }
                results.append(result)
                guard PQgetResult(handle) == nil, PQstatus(handle) == CONNECTION_OK else {
                    throw PostgresError.connection(Self.lastError(handle))
                }
            }
            let end = PQgetResult(handle)
            defer { PQclear(end) }
            guard PQresultStatus(end) == PGRES_PIPELINE_SYNC, PQexitPipelineMode(handle) == 1 else {
                throw PostgresError.connection(Self.lastError(handle))
            }
        } catch {
            results.forEach { PQclear($0) }
            throw error
        }
        return results
    }

    private static func lastError(_ handle: OpaquePointer) -> String {
        String(cString: PQerrorMessage(handle))
    }
}
