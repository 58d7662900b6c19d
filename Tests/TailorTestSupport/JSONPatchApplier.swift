import Foundation

/// RFC 6902's `add`, `remove` and `replace` with RFC 6901 pointers, on JSON as
/// Foundation reads it: what a client does with a patch event, written here on
/// its own so that the server's patches are checked against another reading.
public enum JSONPatchApplier {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `document` (bytes) with `operations` (bytes of a JSON array) applied in order.
    public static func apply(_ operations: some Sequence<UInt8>, to document: some Sequence<UInt8>) throws -> Any {
        let parsed = try JSONSerialization.jsonObject(with: Data(operations))
        guard let list = parsed as? [[String: Any]] else { throw Failure(description: "a patch is an array of objects") }
        return try apply(list, to: try JSONSerialization.jsonObject(with: Data(document), options: .fragmentsAllowed))
    }

    /// `document` with `operations` applied in order.
    public static func apply(_ operations: [[String: Any]], to document: Any) throws -> Any {
        var document = document
        for operation in operations {
            guard let op = operation["op"] as? String, let path = operation["path"] as? String else {
                throw Failure(description: "an operation without op or path: \(operation)")
            }
            let tokens = path.isEmpty ? [] : path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            }
            document = try apply(op, at: tokens[...], value: operation["value"], to: document)
        }
        return document
    }

    /// JSON text with sorted keys: two documents are the same exactly when these are.
    public static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    /// `bytes` read and written again as `canonical` does.
    public static func canonical(bytes: some Sequence<UInt8>) throws -> String {
        try canonical(try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed))
    }

    private static func apply(_ op: String, at path: ArraySlice<String>, value: Any?, to document: Any) throws -> Any {
        guard let token = path.first else {
            guard op != "remove", let value else { throw Failure(description: "\(op) of the whole document") }
            return value
        }
        let rest = path.dropFirst()
        if var object = document as? [String: Any] {
            if rest.isEmpty {
                switch op {
                case "add": object[token] = try required(value)
                case "replace", "remove":
                    guard object[token] != nil else { throw Failure(description: "\(op) of a missing member \(token)") }
                    object[token] = op == "remove" ? nil : try required(value)
                default: throw Failure(description: "unknown op \(op)")
                }
            } else {
                guard let member = object[token] else { throw Failure(description: "no member \(token)") }
                object[token] = try apply(op, at: rest, value: value, to: member)
            }
            return object
        }
        if var array = document as? [Any] {
            guard let index = token == "-" ? array.count : Int(token), index >= 0, index <= array.count else {
                throw Failure(description: "index \(token) of \(array.count)")
            }
            if rest.isEmpty {
                switch op {
                case "add": array.insert(try required(value), at: index)
                case "remove" where index < array.count: array.remove(at: index)
                case "replace" where index < array.count: array[index] = try required(value)
                default: throw Failure(description: "\(op) at \(token) of \(array.count)")
                }
            } else {
                guard index < array.count else { throw Failure(description: "no item \(token)") }
                array[index] = try apply(op, at: rest, value: value, to: array[index])
            }
            return array
        }
        throw Failure(description: "\(token) inside a value that is neither object nor array")
    }

    private static func required(_ value: Any?) throws -> Any {
        guard let value else { throw Failure(description: "add and replace need a value") }
        return value
    }
}
