import Foundation
// A client's documents are the wire's JSON values: an app that imports the
// client has them, and the patches and streams that change them, with it.
@_exported import TailorWire

/// A JSON document as the server sent it: what patches apply to, what the
/// store keeps, and what an action's body holds (`TailorWire.JSONValue`).
extension JSONValue {
    /// The document read from JSON text.
    static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parse([UInt8](data))
    }

    /// The document as a typed value: the JSON keys are the property names.
    func decoded<Value: Decodable>(as type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
    }
}
