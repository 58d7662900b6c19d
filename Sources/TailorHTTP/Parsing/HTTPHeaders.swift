/// The header fields of a request, kept as byte ranges into one copy of the head.
///
/// Parsing makes no `String` per field; a lookup compares bytes, ignoring ASCII
/// case in names as RFC 9110 §5.1 requires, and makes a `String` only for the
/// value asked for.
public struct HTTPHeaders: Sendable {
    struct Field: Sendable {
        var nameStart: Int32
        var nameEnd: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    let head: [UInt8]
    var fields: [Field]

    init(head: [UInt8], fields: [Field]) {
        self.head = head
        self.fields = fields
    }

    /// Headers from name-value pairs, for building requests in code.
    public init(_ pairs: [(String, String)]) {
        var head: [UInt8] = []
        var fields: [Field] = []
        for (name, value) in pairs {
            let nameStart = Int32(head.count)
            head += name.utf8
            let valueStart = Int32(head.count)
            head += value.utf8
            fields.append(Field(nameStart: nameStart, nameEnd: valueStart, valueStart: valueStart, valueEnd: Int32(head.count)))
        }
        self.init(head: head, fields: fields)
    }

    public var count: Int { fields.count }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        guard let field = first(name) else { return nil }
        return string(field.valueStart, field.valueEnd)
    }

    /// The first value of the field `name` as its bytes in place, or nil: no
    /// `String` is made for a value read on every request (a bearer token).
    public func valueBytes(_ name: String) -> ArraySlice<UInt8>? {
        first(name).map(bytes)
    }

    /// Every value of the field `name`, in order.
    public func values(_ name: String) -> [String] {
        matching(name).map { string($0.valueStart, $0.valueEnd) }
    }

    /// Whether a comma-separated field `name` lists `token`, ignoring case
    /// (`Connection: keep-alive, Upgrade` lists `upgrade`).
    public func contains(_ name: String, token: String) -> Bool {
        for field in matching(name) {
            var start = Int(field.valueStart)
            let end = Int(field.valueEnd)
            while start <= end {
                var stop = start
                while stop < end, head[stop] != UInt8(ascii: ",") { stop += 1 }
                var first = start, last = stop
                while first < last, Self.isSpace(head[first]) { first += 1 }
                while last > first, Self.isSpace(head[last - 1]) { last -= 1 }
                if Self.equalIgnoringCase(head[first..<last], token.utf8) { return true }
                start = stop + 1
            }
        }
        return false
    }

    func first(_ name: String) -> Field? {
        fields.first { Self.equalIgnoringCase(head[Int($0.nameStart)..<Int($0.nameEnd)], name.utf8) }
    }

    /// How many fields are named `name`.
    func count(of name: String) -> Int {
        fields.reduce(0) { $0 + (Self.equalIgnoringCase(head[Int($1.nameStart)..<Int($1.nameEnd)], name.utf8) ? 1 : 0) }
    }

    func matching(_ name: String) -> [Field] {
        fields.filter { Self.equalIgnoringCase(head[Int($0.nameStart)..<Int($0.nameEnd)], name.utf8) }
    }

    func bytes(_ field: Field) -> ArraySlice<UInt8> {
        head[Int(field.valueStart)..<Int(field.valueEnd)]
    }

    private func string(_ start: Int32, _ end: Int32) -> String {
        String(decoding: head[Int(start)..<Int(end)], as: UTF8.self)
    }

    package static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    package static func equalIgnoringCase(_ bytes: ArraySlice<UInt8>, _ other: some Collection<UInt8>) -> Bool {
        guard bytes.count == other.count else { return false }
        var index = bytes.startIndex
        for byte in other {
            if lowercased(bytes[index]) != lowercased(byte) { return false }
            index += 1
        }
        return true
    }

    package static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
