import Glibc

/// A statement's parameters as libpq takes them: integers and texts as text,
/// byte strings in binary, each in memory of its own until the call returns.
struct PostgresParameters {
    let values: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let lengths: UnsafeMutablePointer<Int32>
    let formats: UnsafeMutablePointer<Int32>
    let count: Int

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
