/// Any JSON value, read without a schema so each field can be checked with a
/// message that says what is wrong.
indirect enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
}
