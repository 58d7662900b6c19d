import TailorHTTP

/// A view model that writes itself as JSON.
///
/// Each writes its keys in sorted order, so that a view model always gives the
/// same bytes and the same ETag, exactly as a sorted-keys encoder would but
/// without building a tree of boxed values first: view models are rebuilt after
/// every change a stream follows, and encoding was most of that cost.
protocol JSONWritable {
    func write(to json: inout JSONWriter)
    /// Bytes to reserve before writing, so that large documents grow at most once.
    var estimatedJSONSize: Int { get }
}

extension JSONWritable {
    var estimatedJSONSize: Int { 256 }
}

/// Appends compact JSON (RFC 8259) to a byte array: objects, arrays, strings,
/// integers, booleans and null, the only kinds our view models hold.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value opens its container (or follows a key) and so
    /// needs no comma before it.
    private var atStart = true

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    static func bytes(of value: some JSONWritable) -> [UInt8] {
        var writer = JSONWriter(capacity: value.estimatedJSONSize)
        value.write(to: &writer)
        return writer.bytes
    }

    /// Writes `value` at the end of `bytes`, which it borrows, not copies.
    static func append(_ value: some JSONWritable, to bytes: inout [UInt8]) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &bytes)
        value.write(to: &writer)
        swap(&writer.bytes, &bytes)
    }

    // MARK: Containers

    /// An object whose members `body` writes with `field`, in sorted key order.
    mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        atStart = true
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        atStart = false
    }

    /// An array of `count` values that `item` writes, one call each.
    mutating func array(count: Int, _ item: (inout JSONWriter, Int) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        atStart = true
        for index in 0..<count { item(&self, index) }
        bytes.append(UInt8(ascii: "]"))
        atStart = false
    }

    mutating func array(_ items: [some JSONWritable]) {
        array(count: items.count) { json, index in items[index].write(to: &json) }
    }

    // MARK: Members

    /// A key; the value written next is its value.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        atStart = true
    }

    mutating func field(_ name: StaticString, _ value: String) { key(name); string(value) }
    mutating func field(_ name: StaticString, _ value: Int) { key(name); integer(value) }
    mutating func field(_ name: StaticString, _ value: Bool) { key(name); boolean(value) }
    mutating func field(_ name: StaticString, _ value: some JSONWritable) { key(name); value.write(to: &self) }
    mutating func field(_ name: StaticString, _ values: [some JSONWritable]) { key(name); array(values) }

    mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    mutating func field(_ name: StaticString, _ value: (some JSONWritable)?) {
        key(name)
        if let value { value.write(to: &self) } else { null() }
    }

    /// A `[String: String]` as an object with sorted keys.
    mutating func field(_ name: StaticString, _ dictionary: [String: String]) {
        key(name)
        separate()
        bytes.append(UInt8(ascii: "{"))
        atStart = true
        for (key, value) in dictionary.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            string(key)
            bytes.append(UInt8(ascii: ":"))
            atStart = true
            string(value)
        }
        bytes.append(UInt8(ascii: "}"))
        atStart = false
    }

    // MARK: Values

    /// A value written before, placed as it is.
    mutating func fragment(_ json: ArraySlice<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        atStart = false
    }

    mutating func string(_ value: String) {
        separate()
        JSONText.appendQuoted(value, to: &bytes)
        atStart = false
    }

    mutating func integer(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        atStart = false
    }

    mutating func boolean(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        atStart = false
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        atStart = false
    }

    private mutating func separate() {
        if !atStart { bytes.append(UInt8(ascii: ",")) }
    }
}
