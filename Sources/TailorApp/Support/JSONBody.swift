import TailorHTTP
import TailorWire

/// A request's JSON object body, checked field by field: not JSON is 400, not
/// declared as JSON is 415, not an object or a wrong field is 422.
struct JSONBody {
    let fields: [String: JSONValue]

    init(_ request: HTTPRequest) throws {
        guard let type = request.headers["content-type"]?.lowercased(),
              type.split(separator: ";").first?.trimmed == "application/json" else {
            throw APIError.notJSON
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body)
        } catch {
            throw APIError.malformedJSON(error.reason)
        }
        guard case .object(let fields) = value else { throw APIError.invalid("The body must be a JSON object.") }
        self.fields = fields
    }

    init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// A string field that must be there.
    func string(_ name: String) throws -> String {
        guard let value = try optionalString(name) else { throw APIError.invalid("\"\(name)\" is required.") }
        return value
    }

    /// A string field; nil when absent or null.
    func optionalString(_ name: String) throws -> String? {
        switch fields[name] {
        case .string(let value): return value
        case nil, .null?: return nil
        default: throw APIError.invalid("\"\(name)\" must be a string.")
        }
    }

    /// A text field that must be there, within `limit`, trimmed unless told
    /// not to; `label` names the field in the error (`items[2].title`).
    func text(_ name: String, within limit: TextLimit, trimming: Bool = true, label: String? = nil) throws -> String {
        try checked(try string(name), within: limit, trimming: trimming, label: label ?? name)
    }

    /// As `text`, nil when absent or null.
    func optionalText(_ name: String, within limit: TextLimit, trimming: Bool = true) throws -> String? {
        try optionalString(name).map { try checked($0, within: limit, trimming: trimming, label: name) }
    }

    private func checked(_ given: String, within limit: TextLimit, trimming: Bool, label: String) throws -> String {
        let value = trimming ? given.trimmed : given
        guard limit.admits(value) else {
            throw APIError.invalid("\"\(label)\" must be \(limit.description)" + (trimming ? " after trimming." : "."))
        }
        // Trimmed texts are shown to people: one of invisible characters only is refused like an empty one.
        guard !trimming || TextLimit.isVisible(value) else {
            throw APIError.invalid("\"\(label)\" must have a visible character.")
        }
        return value
    }

    /// A whole-number field within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = fields[name]?.number else { throw APIError.invalid("\"\(name)\" must be a whole number.") }
        guard value == value.rounded(), let whole = Int(exactly: value), range.contains(whole) else {
            throw APIError.invalid("\"\(name)\" must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return whole
    }

    /// A true or false field that must be there.
    func bool(_ name: String) throws -> Bool {
        guard case .bool(let value)? = fields[name] else { throw APIError.invalid("\"\(name)\" must be true or false.") }
        return value
    }

    func array(_ name: String) throws -> [JSONValue] {
        guard case .array(let values)? = fields[name] else { throw APIError.invalid("\"\(name)\" must be an array.") }
        return values
    }
}
