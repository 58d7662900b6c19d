import Foundation
import TailorWire
import Testing

/// Request bodies, feed entries and a client's documents are read by our own
/// parser; on every input of these tables it must agree with Foundation's:
/// the same value, or both refuse.
@Suite struct JSONParserTests {
    /// Foundation's reading of `text`, as a `JSONValue` with every number a
    /// double (Foundation does not say how a number was written), or nil when it refuses.
    private func foundation(_ text: String) -> JSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else { return nil }
        return convert(object)
    }

    /// `value` with every number a double, to compare with Foundation's.
    private func doubles(_ value: JSONValue) -> JSONValue {
        switch value {
        case .integer(let number): .double(Double(number))
        case .array(let items): .array(items.map(doubles))
        case .object(let members): .object(members.mapValues(doubles))
        default: value
        }
    }

    private func convert(_ object: Any) -> JSONValue {
        switch object {
        case let dictionary as [String: Any]: return .object(dictionary.mapValues(convert))
        case let array as [Any]: return .array(array.map(convert))
        case let string as String: return .string(string)
        case is NSNull: return .null
        case let number as NSNumber:
            // A boolean is an NSNumber of Objective-C type "c" (char).
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .double(number.doubleValue)
        default: fatalError("unexpected \(type(of: object))")
        }
    }

    static let valid = [
        #"{"text":"hi","clientId":"a1"}"#,
        #" { "name" : "Groceries" , "items" : [ { "title" : "Milk", "quantity" : 2, "priceCents" : 129 } ] } "#,
        #"{"a":[1,-2,3.5,-0.25,1e3,1E-2,2e+2,0],"b":true,"c":false,"d":null,"e":{},"f":[]}"#,
        #"{"escapes":"\" \\ \/ \b \f \n \r \t \u00e9 \u65e5 \ud83e\uddf5"}"#,
        #"{"unicode":"é 日本 🧵","nested":{"dup":1},"dup":2}"#,
        #"[]"#, #""just a string""#, #"42"#, "\t{\"k\":\"v\"}\r\n",
    ]

    static let invalid = [
        "", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[1 2]", "{'a':1}", "{a:1}",
        "01", "-", "1.", ".5", "1e", "+1", "NaN", "Infinity", "tru", "nul", "truex",
        "\"unterminated", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud83e\"", "\"\\ud83e\\u0041\"",
        "\"control \u{01} char\"", "{\"a\":1} extra", "[1]]", "{\"a\":1}}",
        // The same key twice would let one body say two things; the last would win unnoticed.
        "{\"status\":\"paid\",\"status\":\"cancelled\"}", "[{\"a\":1,\"b\":2,\"a\":3}]",
    ]

    @Test(arguments: valid) func readsWhatFoundationReads(_ text: String) throws {
        let ours = try JSONParser.parse(Array(text.utf8))
        #expect(doubles(ours) == foundation(text))
    }

    @Test(arguments: invalid) func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONParser.Malformed.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    /// Valid JSON whose number no field can hold: read as infinity, so that the
    /// field's check answers 422 rather than the body 400.
    @Test func readsAnOverflowingNumberAsInfinity() throws {
        #expect(try JSONParser.parse(Array("1e999".utf8)) == .double(.infinity))
        #expect(try JSONParser.parse(Array("-1e400".utf8)) == .double(-.infinity))
    }

    /// A number without fraction or exponent that fits 64 bits stays an
    /// integer: an id or a count read and written back is the same text.
    @Test func integersStayIntegersWithinSixtyFourBits() throws {
        #expect(try JSONParser.parse(Array("42".utf8)) == .integer(42))
        #expect(try JSONParser.parse(Array("-0".utf8)) == .integer(0))
        #expect(try JSONParser.parse(Array("9223372036854775807".utf8)) == .integer(.max))
        #expect(try JSONParser.parse(Array("-9223372036854775808".utf8)) == .integer(.min))
        #expect(try JSONParser.parse(Array("9223372036854775808".utf8)) == .double(9223372036854775808))
        #expect(try JSONParser.parse(Array("3.0".utf8)) == .double(3))
        #expect(try JSONParser.parse(Array("1e2".utf8)) == .double(100))
    }

    @Test func refusesInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONParser.Malformed.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
        let deep = String(repeating: "[", count: JSONParser.maxDepth + 1) + String(repeating: "]", count: JSONParser.maxDepth + 1)
        #expect(throws: JSONParser.Malformed.self) { try JSONParser.parse(Array(deep.utf8)) }
        let allowed = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect((try? JSONParser.parse(Array(allowed.utf8))) != nil)
    }
}
