/// A chat screen's messages as JSON: each message written once into one
/// buffer, and where it lies there, by message id, oldest first.
///
/// A rebuilt screen takes the bytes of every message that is as it was from
/// the screen's previous list (`MessagePages`), and writes only the new or
/// newly read ones.
struct MessageList: JSONWritable, Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        let id: Int
        let read: Bool
        let range: Range<Int>
    }

    private(set) var entries: [Entry] = []
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0, bytesPerMessage: Int = 192) {
        entries.reserveCapacity(capacity)
        bytes.reserveCapacity(capacity * bytesPerMessage)
    }

    /// Writes a message's view model.
    mutating func append(id: Int, read: Bool, _ message: MessageViewModel) {
        let start = bytes.count
        JSONWriter.append(message, to: &bytes)
        entries.append(Entry(id: id, read: read, range: start..<bytes.count))
    }

    /// Takes a message's bytes from another list.
    mutating func append(_ entry: Entry, of other: MessageList) {
        let start = bytes.count
        bytes.append(contentsOf: other.bytes[entry.range])
        entries.append(Entry(id: entry.id, read: entry.read, range: start..<bytes.count))
    }

    /// Each message's JSON.
    var messageJSON: [ArraySlice<UInt8>] { entries.map { bytes[$0.range] } }

    func write(to json: inout JSONWriter) {
        json.array(count: entries.count) { json, index in json.fragment(bytes[entries[index].range]) }
    }

    var estimatedJSONSize: Int { bytes.count + entries.count + 2 }
}
