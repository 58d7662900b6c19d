import TailorWire

/// RFC 6902 JSON Patch as the server sends it (`add`, `remove`, `replace`),
/// read from JSON and applied by the one applier of the wire format
/// (`TailorWire`). A patch that does not fit the document is an error: the
/// stream then starts over from whole view models.
struct JSONPatch: Decodable, Sendable {
    struct Operation: Sendable {
        let op: String
        let path: String
        let value: JSONValue?
    }

    typealias Mismatch = JSONPatchMismatch

    let operations: [Operation]

    /// The patch read from the JSON array a patch event holds, as it was
    /// parsed with the event: not written out and decoded again.
    init(_ patch: JSONValue) throws(JSONPatchMismatch) {
        guard case .array(let items) = patch else { throw JSONPatchMismatch("a patch is an array of operations") }
        var operations: [Operation] = []
        operations.reserveCapacity(items.count)
        for item in items {
            guard case .string(let op)? = item["op"], case .string(let path)? = item["path"] else {
                throw JSONPatchMismatch("an operation without its op or path")
            }
            operations.append(Operation(op: op, path: path, value: item["value"]))
        }
        self.operations = operations
    }

    init(from decoder: any Decoder) throws {
        try self.init(JSONValue(from: decoder))
    }

    func applied(to document: JSONValue) throws(JSONPatchMismatch) -> JSONValue {
        var document = document
        var read: [JSONPatchOperation<JSONValue>] = []
        for operation in operations { read.append(try JSONPatchOperation(op: operation.op, path: operation.path, value: operation.value)) }
        try document.apply(read)
        return document
    }
}
