/// A JSON document that a stream taking patches holds: parsed into objects,
/// arrays and scalars that keep their bytes as they came, so that writing it
/// back gives exactly the server's bytes (compact, keys sorted), and RFC 6902
/// `add`, `remove` and `replace` apply to it.
indirect enum PatchableJSON: Equatable {
    /// Members in order; a key is its bytes between the quotes.
    case object([(key: [UInt8], value: PatchableJSON)])
    case array([PatchableJSON])
    /// A string, number, `true`, `false` or `null`, as written.
    case scalar([UInt8])

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func == (a: PatchableJSON, b: PatchableJSON) -> Bool {
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    // MARK: Reading and writing

    static func parse(_ bytes: ArraySlice<UInt8>) throws -> PatchableJSON {
        var parser = Parser(bytes: bytes)
        let value = try parser.value()
        parser.skipSpace()
        guard parser.atEnd else { throw Failure(description: "bytes after the document") }
        return value
    }

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return bytes
    }

    func write(to bytes: inout [UInt8]) {
        switch self {
        case .scalar(let scalar):
            bytes += scalar
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                item.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(UInt8(ascii: "\""))
                bytes += member.key
                bytes += [UInt8(ascii: "\""), UInt8(ascii: ":")]
                member.value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The member named `key` of an object.
    subscript(key: String) -> PatchableJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key.elementsEqual(key.utf8) }?.value
    }

    /// A scalar's bytes as text (a string's without its quotes).
    var text: String? {
        guard case .scalar(var bytes) = self else { return nil }
        if bytes.first == UInt8(ascii: "\"") { bytes = Array(bytes.dropFirst().dropLast()) }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: Patches

    /// Applies RFC 6902 operations (a JSON array) in order.
    mutating func apply(patch operations: PatchableJSON) throws {
        guard case .array(let operations) = operations else { throw Failure(description: "a patch is an array") }
        for operation in operations {
            guard let op = operation["op"]?.text, let path = operation["path"]?.text else {
                throw Failure(description: "an operation without op or path")
            }
            let tokens: [[UInt8]] = path.isEmpty ? [] : path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
                .map { Self.unescape(Array($0)) }
            try apply(op, at: tokens[...], value: operation["value"])
        }
    }

    private mutating func apply(_ op: String, at path: ArraySlice<[UInt8]>, value: PatchableJSON?) throws {
        guard let token = path.first else {
            guard op != "remove", let value else { throw Failure(description: "\(op) of the whole document") }
            self = value
            return
        }
        let rest = path.dropFirst()
        switch self {
        case .object(var members):
            let found = members.firstIndex { $0.key == token }
            if !rest.isEmpty {
                guard let found else { throw Failure(description: "no member \(String(decoding: token, as: UTF8.self))") }
                try members[found].value.apply(op, at: rest, value: value)
            } else {
                switch (op, found) {
                case ("add", nil):
                    // Where a sorted writer puts it.
                    let place = members.firstIndex { !$0.key.lexicographicallyPrecedes(token) } ?? members.count
                    members.insert((token, try Self.required(value)), at: place)
                case ("add", let found?), ("replace", let found?):
                    members[found].value = try Self.required(value)
                case ("remove", let found?):
                    members.remove(at: found)
                default:
                    throw Failure(description: "\(op) of member \(String(decoding: token, as: UTF8.self))")
                }
            }
            self = .object(members)
        case .array(var items):
            let index = token == Array("-".utf8) ? items.count : Int(String(decoding: token, as: UTF8.self))
            guard let index, index >= 0, index <= items.count else { throw Failure(description: "a bad index of \(items.count) items") }
            if !rest.isEmpty {
                guard index < items.count else { throw Failure(description: "no item \(index)") }
                try items[index].apply(op, at: rest, value: value)
            } else {
                switch op {
                case "add": items.insert(try Self.required(value), at: index)
                case "remove" where index < items.count: items.remove(at: index)
                case "replace" where index < items.count: items[index] = try Self.required(value)
                default: throw Failure(description: "\(op) at \(index) of \(items.count) items")
                }
            }
            self = .array(items)
        case .scalar:
            throw Failure(description: "a path into a scalar")
        }
    }

    private static func required(_ value: PatchableJSON?) throws -> PatchableJSON {
        guard let value else { throw Failure(description: "add and replace need a value") }
        return value
    }

    /// RFC 6901: `~1` is `/`, `~0` is `~`.
    private static func unescape(_ token: [UInt8]) -> [UInt8] {
        guard token.contains(UInt8(ascii: "~")) else { return token }
        var result: [UInt8] = []
        var index = 0
        while index < token.count {
            if token[index] == UInt8(ascii: "~"), index + 1 < token.count {
                result.append(token[index + 1] == UInt8(ascii: "1") ? UInt8(ascii: "/") : UInt8(ascii: "~"))
                index += 2
            } else {
                result.append(token[index])
                index += 1
            }
        }
        return result
    }
}

/// Reads JSON into `PatchableJSON`, keeping each scalar's bytes.
private struct Parser {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var atEnd: Bool { index == bytes.endIndex }

    mutating func skipSpace() {
        while index < bytes.endIndex, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func value() throws -> PatchableJSON {
        skipSpace()
        guard index < bytes.endIndex else { throw PatchableJSON.Failure(description: "the document ends early") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(key: [UInt8], value: PatchableJSON)] = []
            skipSpace()
            if take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipSpace()
                let key = try string()
                skipSpace()
                guard take(UInt8(ascii: ":")) else { throw PatchableJSON.Failure(description: "a key without a colon") }
                members.append((Array(key.dropFirst().dropLast()), try value()))
                skipSpace()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { throw PatchableJSON.Failure(description: "an object not closed") }
            return .object(members)
        case UInt8(ascii: "["):
            index += 1
            var items: [PatchableJSON] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return .array(items) }
            repeat {
                items.append(try value())
                skipSpace()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { throw PatchableJSON.Failure(description: "an array not closed") }
            return .array(items)
        case UInt8(ascii: "\""):
            return .scalar(Array(try string()))
        default:
            let start = index
            while index < bytes.endIndex, !",}] \n\r\t".utf8.contains(bytes[index]) { index += 1 }
            guard index > start else { throw PatchableJSON.Failure(description: "an empty value") }
            return .scalar(Array(bytes[start..<index]))
        }
    }

    /// A string with its quotes, escapes kept as written.
    private mutating func string() throws -> ArraySlice<UInt8> {
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { throw PatchableJSON.Failure(description: "a string expected") }
        let start = index
        index += 1
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard index < bytes.endIndex else { throw PatchableJSON.Failure(description: "a string not closed") }
        index += 1
        return bytes[start..<index]
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.endIndex, bytes[index] == byte else { return false }
        index += 1
        return true
    }
}
