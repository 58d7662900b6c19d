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
