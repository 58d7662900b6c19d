/// Any JSON value, read without a schema: a request's body that the server
/// checks field by field, a feed entry's changes, the view models a client
/// keeps and patches. Integers stay integers (up to 64 bits), so a value
/// written back reads as it came.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value read from JSON text (`JSONParser`).
    public static func parse(_ bytes: [UInt8]) throws(JSONParser.Malformed) -> JSONValue {
        try JSONParser.parse(bytes)
    }

    /// An object's member, or nil (for a missing member, or when this is no object).
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// A number, whether written with a fraction or not; nil for any other value.
    public var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The value as JSON text, written by hand: it cannot fail (a number that
    /// is not finite, which JSON cannot hold, is written as null).
    public var jsonText: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .double(let value): value.isFinite ? "\(value)" : "null"
        case .string(let value): Self.quoted(value)
        case .array(let items): "[" + items.map(\.jsonText).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { Self.quoted($0.key) + ":" + $0.value.jsonText }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}

/// The value as a `Codable` one, for a type that reads its fields from it.
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each kind is tried in turn: a kind that fails only means the value is another one.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// A document a client keeps, changed in place by patches.
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
