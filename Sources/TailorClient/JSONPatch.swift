import TailorWire

/// RFC 6902 JSON Patch as the server sends it (`add`, `remove`, `replace`),
/// read from JSON and applied by the one applier of the wire format
/// (`TailorWire`). A patch that does not fit the document is an error: the
/// stream then starts over from whole view models.
struct JSONPatch: Decodable, Sendable {
    struct Operation: Decodable, Sendable {
        let op: String
        let path: String
        let value: JSONValue?
    }

    typealias Mismatch = JSONPatchMismatch

    let operations: [Operation]

    init(from decoder: any Decoder) throws {
        operations = try [Operation](from: decoder)
    }

    func applied(to document: JSONValue) throws(JSONPatchMismatch) -> JSONValue {
        var document = document
        var read: [JSONPatchOperation<JSONValue>] = []
        for operation in operations { read.append(try JSONPatchOperation(op: operation.op, path: operation.path, value: operation.value)) }
        try document.apply(read)
        return document
    }
}

/// A document the Swift client keeps, changed in place by patches.
extension JSONValue: JSONPatchable {
    public var patchShape: JSONPatchShape {
        switch self {
        case .object: .object
        case .array(let items): .array(count: items.count)
        default: .scalar
        }
    }

    public func member(_ key: String) -> JSONValue? { self[key] }

    public mutating func setMember(_ key: String, to value: JSONValue) {
        guard case .object(var members) = self else { return }
        self = .null  // Lets go of the members, so that they are changed in place rather than copied.
        members[key] = value
        self = .object(members)
    }

    public mutating func removeMember(_ key: String) -> Bool {
        guard case .object(var members) = self else { return false }
        self = .null  // Lets go of the members, so that they are changed in place rather than copied.
        defer { self = .object(members) }
        return members.removeValue(forKey: key) != nil
    }

    public func item(at index: Int) -> JSONValue {
        guard case .array(let items) = self else { preconditionFailure("an item of a value that is no array") }
        return items[index]
    }

    public mutating func changeItems(_ change: (inout [JSONValue]) -> Void) {
        guard case .array(var items) = self else { return }
        self = .null  // Lets go of the items, so that they are changed in place rather than copied.
        change(&items)
        self = .array(items)
    }
}
