/// Reads JSON text (RFC 8259) strictly: one value, optional whitespace around
/// it, strings of valid UTF-8 with the standard escapes. The server reads
/// request bodies and feed entries with it, a client the view models it is
/// sent. Small because the texts are small; a general-purpose decoder cost
/// the server more per message than the rest of reading the request.
public struct JSONParser {
    /// Arrays and objects nested deeper than this are refused, so that a hostile
    /// body cannot exhaust the stack.
    public static let maxDepth = 64

    /// Why the body is not JSON, in words for the error's message.
    public struct Malformed: Error {
        public var reason = "The body is not valid JSON."
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// The value `bytes` hold, or `Malformed`.
    public static func parse(_ bytes: [UInt8]) throws(Malformed) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw Malformed() }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func value() throws(Malformed) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func object() throws(Malformed) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if try take(UInt8(ascii: "}")) { return .object(fields) }
        repeat {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed() }
            let key = try string()
            skipWhitespace()
            guard try take(UInt8(ascii: ":")) else { throw Malformed() }
            guard fields.updateValue(try value(), forKey: key) == nil else {
                throw Malformed(reason: "The body names \"\(key)\" twice.")
            }
            skipWhitespace()
        } while try take(UInt8(ascii: ","))
        guard try take(UInt8(ascii: "}")) else { throw Malformed() }
        return .object(fields)
    }

    private mutating func array() throws(Malformed) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if try take(UInt8(ascii: "]")) { return .array(values) }
        repeat {
            values.append(try value())
            skipWhitespace()
        } while try take(UInt8(ascii: ","))
        guard try take(UInt8(ascii: "]")) else { throw Malformed() }
        return .array(values)
    }

    /// A string literal from its opening quote (RFC 8259 §7).
    private mutating func string() throws(Malformed) -> String {
        index += 1
        var text: [UInt8] = []
        while true {
            guard index < bytes.count else { throw Malformed() }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: text, as: UTF8.self) else { throw Malformed() }
                return string
            case UInt8(ascii: "\\"):
                try escape(into: &text)
            case 0..<0x20:
                throw Malformed()
            default:
                text.append(byte)
            }
        }
    }

    private mutating func escape(into text: inout [UInt8]) throws(Malformed) {
        guard index < bytes.count else { throw Malformed() }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard try take(UInt8(ascii: "\\")), try take(UInt8(ascii: "u")) else { throw Malformed() }
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw Malformed() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw Malformed() }
            text.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw Malformed()
        }
    }

    private mutating func hex4() throws(Malformed) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Malformed() }
        var value: UInt32 = 0
        for byte in bytes[index..<(index + 4)] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { throw Malformed() }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`;
    /// an integer when it has neither fraction nor exponent and fits 64 bits.
    private mutating func number() throws(Malformed) -> JSONValue {
        let start = index
        _ = try take(UInt8(ascii: "-"))
        guard index < bytes.count else { throw Malformed() }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw Malformed() }
        }
        var whole = true
        if try take(UInt8(ascii: ".")) {
            guard digits() > 0 else { throw Malformed() }
            whole = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw Malformed() }
            whole = false
        }
        if whole, let integer = Self.integer(bytes[start..<index]) { return .integer(integer) }
        // Past Double's range this is ±infinity: still valid JSON, which each
        // of the server's range checks then refuses (422), as it would 1e300.
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw Malformed() }
        return .double(value)
    }

    /// The value of an optional minus and digits, read in place; nil past 64 bits.
    private static func integer(_ text: ArraySlice<UInt8>) -> Int64? {
        let negative = text.first == UInt8(ascii: "-")
        var value: Int64 = 0
        for byte in text.dropFirst(negative ? 1 : 0) {
            let digit = Int64(byte &- UInt8(ascii: "0"))
            let (shifted, overflowedShift) = value.multipliedReportingOverflow(by: 10)
            let (added, overflowedAdd) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowedShift, !overflowedAdd else { return nil }
            value = added
        }
        return value
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Malformed() }
        let matches = word.withUTF8Buffer { expected in bytes[index..<(index + count)].elementsEqual(expected) }
        guard matches else { throw Malformed() }
        index += count
    }

    private mutating func enter() throws(Malformed) {
        depth += 1
        guard depth <= Self.maxDepth else { throw Malformed() }
    }

    /// Consumes `byte` if it comes next.
    private mutating func take(_ byte: UInt8) throws(Malformed) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
    }
}
