import CLibPQ
import Glibc

/// A row of a PostgreSQL result, read by column index. Results come as text:
/// integers in decimal, byte strings in bytea's hex form (`\x0a1b…`).
struct PostgresRow: DatabaseRow {
    let result: OpaquePointer
    let row: Int32

    func int(_ column: Int32) -> Int {
        Int(strtoll(PQgetvalue(result, row, column), nil, 10))
    }

    func optionalInt(_ column: Int32) -> Int? {
        PQgetisnull(result, row, column) == 1 ? nil : int(column)
    }

    func text(_ column: Int32) -> String {
        let count = Int(PQgetlength(result, row, column))
        return PQgetvalue(result, row, column).withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    func optionalText(_ column: Int32) -> String? {
        PQgetisnull(result, row, column) == 1 ? nil : text(column)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let hex = Array(text(column).utf8.dropFirst(2))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = 0
        while index + 1 < hex.count {
            bytes.append(Self.nibble(hex[index]) << 4 | Self.nibble(hex[index + 1]))
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : (digit | 0x20) - UInt8(ascii: "a") + 10
    }
}
