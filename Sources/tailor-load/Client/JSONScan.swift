/// Finds values in JSON bytes without decoding the whole document: the load
/// client reads thousands of events a second and needs one or two fields of each.
enum JSONScan {
    /// The first `"name":"value"` in `bytes`.
    static func string(named name: String, in bytes: ArraySlice<UInt8>) -> String? {
        let key = Array("\"\(name)\":\"".utf8)
        guard let start = bytes.firstIndex(ofBytes: key) else { return nil }
        let valueStart = start + key.count
        guard let end = bytes[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: bytes[valueStart..<end], as: UTF8.self)
    }

    /// Every number that follows `prefix` in `bytes`, e.g. message numbers after `"text":"load `.
    static func numbers(after prefix: [UInt8], in bytes: ArraySlice<UInt8>) -> [Int] {
        var found: [Int] = []
        var from = bytes.startIndex
        while let start = bytes[from...].firstIndex(ofBytes: prefix) {
            let (value, end) = digits(in: bytes, from: start + prefix.count)
            if let value { found.append(value) }
            from = end
        }
        return found
    }

    /// The last `"name":123` in `bytes`: for a key near the end of a document,
    /// as the last of a view model's sorted keys is.
    static func lastInteger(named name: String, in bytes: ArraySlice<UInt8>) -> Int? {
        let key = Array("\"\(name)\":".utf8)
        guard let start = bytes.lastIndex(ofBytes: key) else { return nil }
        return digits(in: bytes, from: start + key.count).value
    }

    private static func digits(in bytes: ArraySlice<UInt8>, from start: Int) -> (value: Int?, end: Int) {
        var index = start
        var value = 0
        while index < bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return (index > start ? value : nil, index)
    }
}
