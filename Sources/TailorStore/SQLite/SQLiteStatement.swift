import CSQLite

/// A prepared statement, kept by its connection and reused: bind, step, reset.
public final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection

    /// SQLite copies bound text and blobs (we do not keep them alive for it).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(handle: OpaquePointer, sql: String, connection: SQLiteConnection) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ values: [any DatabaseBindable]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value.databaseValue {
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .real(let number): status = sqlite3_bind_double(handle, index, number)
            case .text(let text): status = sqlite3_bind_text(handle, index, text, -1, Self.transient)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
            case .null: status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else { throw connection.error(status, sql: sql) }
        }
    }

    /// Advances; true while a row is available.
    func step() throws -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(status, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    func reset() {
        sqlite3_reset(handle)
    }
}

/// The current row of a stepping statement, read by column index.
public struct SQLiteRow: DatabaseRow {
    let statement: OpaquePointer

    public func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(statement, column))
    }

    public func optionalInt(_ column: Int32) -> Int? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : int(column)
    }

    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public func optionalText(_ column: Int32) -> String? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : text(column)
    }

    public func blob(_ column: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(statement, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, column))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
