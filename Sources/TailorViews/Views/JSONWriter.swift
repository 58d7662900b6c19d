import TailorHTTP

/// A view model that writes itself as JSON.
///
/// Each writes its keys in sorted order, so that a view model always gives the
/// same bytes and the same ETag, exactly as a sorted-keys encoder would but
/// without building a tree of boxed values first: view models are rebuilt after
/// every change a stream follows, and encoding was most of that cost.
package protocol JSONWritable {
    func write(to json: inout JSONWriter)
    /// Bytes to reserve before writing, so that large documents grow at most once.
    var estimatedJSONSize: Int { get }
}

extension JSONWritable {
    package var estimatedJSONSize: Int { 256 }
}

/// A list of values is a JSON array.
extension Array: JSONWritable where Element: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.array(self)
    }
}

/// Appends compact JSON (RFC 8259) to a byte array: objects, arrays, strings,
/// integers, booleans and null, the only kinds our view models hold.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value opens its container (or follows a key) and so
    /// needs no comma before it.
    private var atStart = true
    /// Where each value lies, when asked for (patches need it, plain reads do not).
    package private(set) var layout: JSONLayout?
    /// While noting the layout: the key written last, whose value comes next.
    private var pendingKey: Range<Int>?

    package init(capacity: Int = 256, notingLayout: Bool = false) {
        bytes.reserveCapacity(capacity)
        if notingLayout { layout = JSONLayout() }
    }

    package static func bytes(of value: some JSONWritable) -> [UInt8] {
        var writer = JSONWriter(capacity: value.estimatedJSONSize)
        value.write(to: &writer)
        return writer.bytes
    }

    /// The bytes and where each of their values lies.
    package static func bytesAndLayout(of value: some JSONWritable) -> (bytes: [UInt8], layout: JSONLayout) {
        var writer = JSONWriter(capacity: value.estimatedJSONSize, notingLayout: true)
        value.write(to: &writer)
        return (writer.bytes, writer.layout!)
    }

    /// Lets `write` write at the end of `bytes`, which it borrows, not copies.
    package static func append(to bytes: inout [UInt8], _ write: (inout JSONWriter) -> Void) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &bytes)
        write(&writer)
        swap(&writer.bytes, &bytes)
    }

    // MARK: Containers

    /// An object whose members `body` writes with `field`, in sorted key order.
    package mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        layout?.opened(.object, at: bytes.count, key: pendingKey.take())
        bytes.append(UInt8(ascii: "{"))
        atStart = true
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        atStart = false
        layout?.closed(at: bytes.count)
    }

    /// An array of `count` values that `item` writes, one call each.
    package mutating func array(count: Int, _ item: (inout JSONWriter, Int) -> Void) {
        separate()
        layout?.opened(.array, at: bytes.count, key: pendingKey.take())
        bytes.append(UInt8(ascii: "["))
        atStart = true
        for index in 0..<count { item(&self, index) }
        bytes.append(UInt8(ascii: "]"))
        atStart = false
        layout?.closed(at: bytes.count)
    }

    package mutating func array(_ items: [some JSONWritable]) {
        array(count: items.count) { json, index in items[index].write(to: &json) }
    }

    // MARK: Members

    /// A key; the value written next is its value.
    package mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        if layout != nil { pendingKey = start..<bytes.count }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        atStart = true
    }

    package mutating func field(_ name: StaticString, _ value: String) { key(name); string(value) }
    package mutating func field(_ name: StaticString, _ value: Int) { key(name); integer(value) }
    package mutating func field(_ name: StaticString, _ value: Bool) { key(name); boolean(value) }
    package mutating func field(_ name: StaticString, _ value: some JSONWritable) { key(name); value.write(to: &self) }
    package mutating func field(_ name: StaticString, _ values: [some JSONWritable]) { key(name); array(values) }

    package mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    package mutating func field(_ name: StaticString, _ value: (some JSONWritable)?) {
        key(name)
        if let value { value.write(to: &self) } else { null() }
    }

    /// A `[String: String]` as an object with sorted keys; one value in the layout.
    package mutating func field(_ name: StaticString, _ dictionary: [String: String]) {
        key(name)
        separate()
        let start = bytes.count
        bytes.append(UInt8(ascii: "{"))
        for (index, (key, value)) in dictionary.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONText.appendQuoted(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        atStart = false
        noteValue(from: start)
    }

    // MARK: Values

    /// A value written before, placed as it is.
    package mutating func fragment(_ json: ArraySlice<UInt8>) {
        separate()
        let start = bytes.count
        bytes.append(contentsOf: json)
        atStart = false
        noteValue(from: start)
    }

    /// A value written before with the layout it was written with, placed as
    /// it is: its members are told apart in this document's layout, so a
    /// patch names what changed inside it.
    /// The layout is asked for only when this writer notes one: a plain
    /// read of a list then touches no row's layout.
    package mutating func fragment(_ json: UnsafeRawBufferPointer, layout written: () -> JSONLayout.Written) {
        separate()
        let start = bytes.count
        bytes.append(contentsOf: json)
        atStart = false
        guard layout != nil else { return }
        layout!.wrote(written(), at: start, key: pendingKey.take())
    }

    /// A value written before, placed with the bytes at `span` (offsets from
    /// its start) written as `replacement`, which is as long.
    package mutating func fragment(_ json: ArraySlice<UInt8>, writing replacement: StaticString, at span: Range<Int>) {
        separate()
        let start = bytes.count
        bytes.append(contentsOf: json[json.startIndex..<(json.startIndex + span.lowerBound)])
        replacement.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: json[(json.startIndex + span.upperBound)...])
        atStart = false
        noteValue(from: start)
    }

    package mutating func string(_ value: String) {
        separate()
        let start = bytes.count
        JSONText.appendQuoted(value, to: &bytes)
        atStart = false
        noteValue(from: start)
    }

    package mutating func integer(_ value: Int) {
        separate()
        let start = bytes.count
        bytes.append(contentsOf: String(value).utf8)
        atStart = false
        noteValue(from: start)
    }

    package mutating func boolean(_ value: Bool) {
        separate()
        let start = bytes.count
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        atStart = false
        noteValue(from: start)
    }

    package mutating func null() {
        separate()
        let start = bytes.count
        bytes.append(contentsOf: "null".utf8)
        atStart = false
        noteValue(from: start)
    }

    private mutating func separate() {
        if !atStart { bytes.append(UInt8(ascii: ",")) }
    }

    /// Notes the value written from `start` on, when noting the layout.
    private mutating func noteValue(from start: Int) {
        guard layout != nil else { return }
        layout!.wrote(start..<bytes.count, key: pendingKey.take())
    }
}
