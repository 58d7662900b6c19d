import Foundation

/// What a client of a stream with `patch=json` holds: each topic's view model,
/// from its whole events and the patches that follow them, checked the way a
/// client checks them (a patch names the id of the event it applies to).
struct PatchedViews {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Per topic (`chat:7`, `orders`…): the view model and the id of the event that brought it.
    private(set) var held: [String: (id: String, viewModel: Any)] = [:]
    private(set) var patchesApplied = 0
    private(set) var wholeEvents = 0

    /// Takes one event of the stream; notifications are passed over.
    mutating func take(_ event: SSEClient.Event) throws {
        guard let id = event.id else { throw Failure(description: "an event without an id") }
        if event.name.hasSuffix(".patch") {
            let data = event.json
            guard let topic = data["topic"] as? String, let base = data["base"] as? Int, let operations = data["patch"] as? [[String: Any]] else {
                throw Failure(description: "a patch without topic, base or operations: \(event.data)")
            }
            guard let current = held[topic] else { throw Failure(description: "a patch of \(topic), which has no view model yet") }
            guard current.id == String(base) else { throw Failure(description: "a patch of \(topic) for \(base), but \(current.id) is held") }
            var viewModel = current.viewModel
            for operation in operations { viewModel = try Self.apply(operation, to: viewModel) }
            held[topic] = (id, viewModel)
            patchesApplied += 1
        } else if event.name != "notification" {
            let viewModel = try JSONSerialization.jsonObject(with: Data(event.data.utf8))
            let topic = event.name == "chat" || event.name == "order" ? "\(event.name):\(event.json["id"] as? String ?? "?")" : event.name
            held[topic] = (id, viewModel)
            wholeEvents += 1
        }
    }

    /// The view model held for `topic`, as JSON text with sorted keys.
    func canonical(_ topic: String) throws -> String {
        guard let viewModel = held[topic]?.viewModel else { throw Failure(description: "nothing held for \(topic)") }
        return try Self.canonical(viewModel)
    }

    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    // MARK: RFC 6902

    private static func apply(_ operation: [String: Any], to document: Any) throws -> Any {
        guard let op = operation["op"] as? String, let path = operation["path"] as? String else {
            throw Failure(description: "an operation without op or path: \(operation)")
        }
        let tokens = path.isEmpty ? [] : path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        return try apply(op, at: tokens[...], value: operation["value"], to: document)
    }

    private static func apply(_ op: String, at path: ArraySlice<String>, value: Any?, to document: Any) throws -> Any {
        guard let token = path.first else {
            guard op != "remove", let value else { throw Failure(description: "\(op) of the whole document") }
            return value
        }
        let rest = path.dropFirst()
        if var object = document as? [String: Any] {
            if rest.isEmpty {
                guard op == "add" || object[token] != nil else { throw Failure(description: "\(op) of a missing member \(token)") }
                object[token] = op == "remove" ? nil : value
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
                case "add": array.insert(value as Any, at: index)
                case "remove" where index < array.count: array.remove(at: index)
                case "replace" where index < array.count: array[index] = value as Any
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
}
