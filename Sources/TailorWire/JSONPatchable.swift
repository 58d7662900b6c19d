/// A JSON document that RFC 6902 patches change: what `add`, `remove` and
/// `replace` need of a value, whatever a client keeps its documents as (the
/// Swift client as typed values, the load tool as the server's bytes). The
/// rules of the patch, its pointers and indices, are in one place:
/// `apply(_:)`.
public protocol JSONPatchable {
    /// What this value is, for a pointer that steps into it.
    var patchShape: JSONPatchShape { get }
    /// An object's member, or nil.
    func member(_ key: String) -> Self?
    /// Adds an object's member, or replaces the member of that key.
    mutating func setMember(_ key: String, to value: Self)
    /// Removes an object's member; false when it has none of that key.
    mutating func removeMember(_ key: String) -> Bool
    /// An array's item; `index` is within it.
    func item(at index: Int) -> Self
    /// Changes an array's items in place (the applier replaces, inserts and
    /// removes, within the bounds); does nothing to any other value.
    mutating func changeItems(_ change: (inout [Self]) -> Void)
}

/// What a value is, for a pointer.
public enum JSONPatchShape: Sendable, Equatable {
    case object
    case array(count: Int)
    /// A string, number, boolean or null: nothing to step into.
    case scalar
}

/// A patch that does not fit the document it is applied to (a missing
/// member, an index out of range, an operation this protocol does not send):
/// the client then starts over from whole view models.
public struct JSONPatchMismatch: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// One operation of a patch, read: its pointer split into tokens (RFC 6901,
/// `~1` as `/` and `~0` as `~`).
public struct JSONPatchOperation<Value: JSONPatchable> {
    public enum Kind: String, Sendable {
        case add, remove, replace
    }

    public let kind: Kind
    public let path: [String]
    public let value: Value?

    public init(op: String, path: String, value: Value?) throws(JSONPatchMismatch) {
        guard let kind = Kind(rawValue: op) else { throw JSONPatchMismatch("unknown operation \(op)") }
        guard path.isEmpty || path.hasPrefix("/") else { throw JSONPatchMismatch("bad pointer \(path)") }
        guard kind == .remove || value != nil else { throw JSONPatchMismatch("\(op) without a value") }
        self.kind = kind
        self.path = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(pointerToken)
        self.value = value
    }
}

/// A token of an RFC 6901 pointer as it reads: `~1` is `/`, `~0` is `~`.
private func pointerToken(_ token: Substring) -> String {
    guard token.contains("~") else { return String(token) }
    var result = ""
    var escaping = false
    for character in token {
        if escaping {
            result.append(character == "1" ? "/" : "~")
            escaping = false
        } else if character == "~" {
            escaping = true
        } else {
            result.append(character)
        }
    }
    return result
}
