extension JSONPatchable {
    /// Applies `operations` in order, as RFC 6902 says: each index is the one
    /// the array has at that step. A mismatch leaves the document partly
    /// changed; the caller drops it.
    public mutating func apply(_ operations: [JSONPatchOperation<Self>]) throws(JSONPatchMismatch) {
        for operation in operations { try change(at: operation.path[...], operation) }
    }

    private mutating func change(at tokens: ArraySlice<String>, _ operation: JSONPatchOperation<Self>) throws(JSONPatchMismatch) {
        guard let token = tokens.first else {
            guard operation.kind != .remove, let value = operation.value else { throw JSONPatchMismatch("cannot remove the whole document") }
            self = value
            return
        }
        let rest = tokens.dropFirst()
        switch patchShape {
        case .object:
            guard rest.isEmpty else {
                guard var child = member(token) else { throw JSONPatchMismatch("no member \(token)") }
                try child.change(at: rest, operation)
                setMember(token, to: child)
                return
            }
            switch operation.kind {
            case .add:
                setMember(token, to: operation.value!)
            case .replace:
                guard member(token) != nil else { throw JSONPatchMismatch("no member \(token) to replace") }
                setMember(token, to: operation.value!)
            case .remove:
                guard removeMember(token) else { throw JSONPatchMismatch("no member \(token) to remove") }
            }
        case .array(let count):
            let adding = rest.isEmpty && operation.kind == .add
            let index = try Self.index(token, count: count, adding: adding)
            guard rest.isEmpty else {
                var child = item(at: index)
                try child.change(at: rest, operation)
                changeItems { $0[index] = child }
                return
            }
            switch operation.kind {
            case .add: changeItems { $0.insert(operation.value!, at: index) }
            case .replace: changeItems { $0[index] = operation.value! }
            case .remove: changeItems { $0.remove(at: index) }
            }
        case .scalar:
            throw JSONPatchMismatch("no container at \(token)")
        }
    }

    /// An index into an array of `count` items, written as RFC 6901 says (no
    /// leading zeros); `-` and the count itself only where an item is added.
    private static func index(_ token: String, count: Int, adding: Bool) throws(JSONPatchMismatch) -> Int {
        if token == "-", adding { return count }
        guard let index = Int(token), index >= 0, String(index) == token, index < count || (adding && index == count) else {
            throw JSONPatchMismatch("index \(token) out of range of \(count) items")
        }
        return index
    }
}
