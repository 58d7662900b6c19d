import TailorWire

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
        var read: [JSONPatchOperation<PatchableJSON>] = []
        for operation in operations {
            guard let op = operation["op"]?.text, let path = operation["path"]?.text else {
                throw Failure(description: "an operation without op or path")
            }
            read.append(try JSONPatchOperation(op: op, path: path, value: operation["value"]))
        }
        try apply(read)
    }
}

/// What the one patch applier (`TailorWire`) changes of a document held.
extension PatchableJSON: JSONPatchable {
    var patchShape: JSONPatchShape {
        switch self {
        case .object: .object
        case .array(let items): .array(count: items.count)
        case .scalar: .scalar
        }
    }

    func member(_ key: String) -> PatchableJSON? { self[key] }

    mutating func setMember(_ key: String, to value: PatchableJSON) {
        guard case .object(var members) = self else { return }
        self = .scalar([])  // Lets go of the members, so that they are changed in place rather than copied.
        let token = Array(key.utf8)
        if let found = members.firstIndex(where: { $0.key == token }) {
            members[found].value = value
        } else {
            // Where a writer of sorted keys puts it, so that the bytes written back are the server's.
            let place = members.firstIndex { !$0.key.lexicographicallyPrecedes(token) } ?? members.count
            members.insert((token, value), at: place)
        }
        self = .object(members)
    }

    mutating func removeMember(_ key: String) -> Bool {
        guard case .object(var members) = self, let found = members.firstIndex(where: { $0.key.elementsEqual(key.utf8) }) else { return false }
        self = .scalar([])
        members.remove(at: found)
        self = .object(members)
        return true
    }

    func item(at index: Int) -> PatchableJSON {
        guard case .array(let items) = self else { preconditionFailure("an item of a value that is no array") }
        return items[index]
    }

    mutating func changeItems(_ change: (inout [PatchableJSON]) -> Void) {
        guard case .array(var items) = self else { return }
        self = .scalar([])  // Lets go of the items, so that they are changed in place rather than copied.
        change(&items)
        self = .array(items)
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
