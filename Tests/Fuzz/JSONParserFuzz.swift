// libFuzzer entry for the wire's JSON parser (request bodies, feed entries, a client's documents); built and run by
// scripts/fuzz, not part of the package's targets.
//
// Besides not crashing (deep nesting included), it checks one property: what
// it reads, written out again as JSON, reads back as the same value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    let again = try? JSONParser.parse(Array(write(value).utf8))
    precondition(again == value || containsNaN(value), "a value did not read back the same")
    return 0
}

/// JSON text for a value, with every string escaped as the parser expects.
private func write(_ value: JSONValue) -> String {
    switch value {
    case .object(let fields):
        return "{" + fields.map { quoted($0.key) + ":" + write($0.value) }.joined(separator: ",") + "}"
    case .array(let values):
        return "[" + values.map(write).joined(separator: ",") + "]"
    case .string(let text):
        return quoted(text)
    case .integer(let number):
        return String(number)
    case .double(let number):
        // Always with a fraction or an exponent, so that it reads back as a double.
        return number.isInfinite ? (number < 0 ? "-1e999" : "1e999") : "\(number)"
    case .bool(let flag):
        return flag ? "true" : "false"
    case .null:
        return "null"
    }
}

private func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

private func containsNaN(_ value: JSONValue) -> Bool {
    switch value {
    case .double(let number): number.isNaN
    case .array(let values): values.contains(where: containsNaN)
    case .object(let fields): fields.values.contains(where: containsNaN)
    default: false
    }
}
