/// RFC 6902 JSON Patch, the operations the server sends (`add`, `remove`,
/// `replace`), with RFC 6901 pointers, applied in order. A patch that does
/// not fit the document is an error: the stream then starts over from whole
/// view models.
struct JSONPatch: Decodable, Sendable {
    struct Operation: Decodable, Sendable {
        let op: String
        let path: String
        let value: JSONValue?
    }

    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    let operations: [Operation]

    init(operations: [Operation]) {
        self.operations = operations
    }

    init(from decoder: any Decoder) throws {
        operations = try [Operation](from: decoder)
    }

    func applied(to document: JSONValue) throws -> JSONValue {
        try operations.reduce(document) { document, operation in try Self.apply(operation, to: document) }
    }

    private static func apply(_ operation: Operation, to document: JSONValue) throws -> JSONValue {
        guard operation.path.isEmpty || operation.path.hasPrefix("/") else { throw Mismatch(description: "bad pointer \(operation.path)") }
        let tokens = operation.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        return try change(document, at: tokens[...], operation)
    }

    private static func change(_ node: JSONValue, at tokens: ArraySlice<String>, _ operation: Operation) throws -> JSONValue {
        guard let token = tokens.first else {
            guard operation.op != "remove", let value = operation.value else { throw Mismatch(description: "cannot \(operation.op) the whole document") }
            return value
        }
        let rest = tokens.dropFirst()
        switch node {
        case .object(var members):
            if rest.isEmpty {
                switch operation.op {
                case "add": members[token] = try value(of: operation)
                case "replace":
                    guard members[token] != nil else { throw Mismatch(description: "no member \(token)") }
                    members[token] = try value(of: operation)
                case "remove":
                    guard members.removeValue(forKey: token) != nil else { throw Mismatch(description: "no member \(token)") }
                default: throw Mismatch(description: "unknown operation \(operation.op)")
                }
            } else {
                guard let child = members[token] else { throw Mismatch(description: "no member \(token)") }
                members[token] = try change(child, at: rest, operation)
            }
            return .object(members)
        case .array(var items):
            let adding = rest.isEmpty && operation.op == "add"
            let index = try Self.index(token, in: items, adding: adding)
            if rest.isEmpty {
                switch operation.op {
                case "add": items.insert(try value(of: operation), at: index)
                case "replace": items[index] = try value(of: operation)
                case "remove": items.remove(at: index)
                default: throw Mismatch(description: "unknown operation \(operation.op)")
                }
            } else {
                items[index] = try change(items[index], at: rest, operation)
            }
            return .array(items)
        default:
            throw Mismatch(description: "no container at \(token)")
        }
    }

    private static func value(of operation: Operation) throws -> JSONValue {
        guard let value = operation.value else { throw Mismatch(description: "\(operation.op) without a value") }
        return value
    }

    /// An index into `items`; `-` and the count itself only where an item is added.
    private static func index(_ token: String, in items: [JSONValue], adding: Bool) throws -> Int {
        if token == "-", adding { return items.count }
        guard let index = Int(token), index >= 0, String(index) == token,
              index < items.count || (adding && index == items.count) else {
            throw Mismatch(description: "index \(token) out of range")
        }
        return index
    }
}
