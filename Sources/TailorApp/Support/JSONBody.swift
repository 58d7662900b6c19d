import TailorHTTP

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
        } catch let malformed as JSONParser.Malformed {
            throw APIError.malformedJSON(malformed.reason)
        }
        guard case .object(let fields) = value else { throw APIError.invalid("The body must be a JSON object.") }
        self.fields = fields
    }

    init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// A string field; nil when absent and not `required`.
    func string(_ name: String, required: Bool = true) throws -> String? {
        switch fields[name] {
        case .string(let value): return value
        case nil, .null?: if required { throw APIError.invalid("\"\(name)\" is required.") } else { return nil }
        default: throw APIError.invalid("\"\(name)\" must be a string.")
        }
    }

    /// A text field within `limit`, trimmed unless told not to. Nil when
    /// absent and not `required`; `label` names the field in the error
    /// (`items[2].title`).
    func text(_ name: String, within limit: TextLimit, trimming: Bool = true, required: Bool = true,
              label: String? = nil) throws -> String? {
        guard let given = try string(name, required: required) else { return nil }
        let value = trimming ? given.trimmed : given
        guard limit.admits(value) else {
            throw APIError.invalid("\"\(label ?? name)\" must be \(limit.description)" + (trimming ? " after trimming." : "."))
        }
        return value
    }

    /// A whole-number field within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard case .number(let value)? = fields[name] else { throw APIError.invalid("\"\(name)\" must be a whole number.") }
        guard value == value.rounded(), let whole = Int(exactly: value), range.contains(whole) else {
            throw APIError.invalid("\"\(name)\" must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return whole
    }

    func array(_ name: String) throws -> [JSONValue] {
        guard case .array(let values)? = fields[name] else { throw APIError.invalid("\"\(name)\" must be an array.") }
        return values
    }
}
