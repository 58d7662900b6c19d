/// A chat screen's messages as JSON: each message written once into one
/// buffer, and where it lies there, by message id, oldest first.
///
/// A rebuilt screen takes the bytes of every message it had from the screen's
/// previous list (`MessagePages`), and writes only the new ones. What a
/// message's JSON says of its state is not taken from the bytes: each entry
/// holds whether the message is read (from the read cursors, when the screen
/// is built) and where its state's letters lie (noted as the message was
/// written), and the list writes `sent` or `read` there as it encodes, so a
/// message read since is taken as it is.
package struct MessageList: JSONWritable, Equatable, Sendable {
    package struct Entry: Equatable, Sendable {
        package let id: Int
        package let read: Bool
        package let range: Range<Int>
        /// Where the four letters of the state begin, from the range's start.
        package let stateOffset: Int
    }

    package private(set) var entries: [Entry] = []
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0, bytesPerMessage: Int = 192) {
        entries.reserveCapacity(capacity)
        bytes.reserveCapacity(capacity * bytesPerMessage)
    }

    /// Writes a message's view model; the list notes whether it shows it read.
    package mutating func append(id: Int, _ message: MessageViewModel) {
        let start = bytes.count
        var stateAt = start
        JSONWriter.append(to: &bytes) { message.write(to: &$0, stateAt: &stateAt) }
        entries.append(Entry(id: id, read: message.state == Self.letters(read: true).description, range: start..<bytes.count,
                             stateOffset: stateAt - start))
    }

    /// Takes a message's bytes from another list, shown as `read` says it is now.
    package mutating func append(_ entry: Entry, of other: MessageList, read: Bool) {
        let start = bytes.count
        bytes.append(contentsOf: other.bytes[entry.range])
        entries.append(Entry(id: entry.id, read: read, range: start..<bytes.count, stateOffset: entry.stateOffset))
    }

    /// `sent` and `read`: the same length, so a message's bytes are the same
    /// size whichever it shows.
    private static func letters(read: Bool) -> StaticString { read ? "read" : "sent" }

    /// The newest messages whose JSON fits in `budget` bytes, at least one.
    package func newest(fitting budget: Int) -> MessageList {
        var first = entries.count
        var size = 0
        while first > 0, first == entries.count || size + entries[first - 1].range.count <= budget {
            first -= 1
            size += entries[first].range.count
        }
        var kept = MessageList(capacity: entries.count - first, bytesPerMessage: 0)
        kept.bytes.reserveCapacity(size)
        for entry in entries[first...] {
            let start = kept.bytes.count
            kept.bytes.append(contentsOf: bytes[entry.range])
            kept.entries.append(Entry(id: entry.id, read: entry.read, range: start..<kept.bytes.count, stateOffset: entry.stateOffset))
        }
        return kept
    }

    package func write(to json: inout JSONWriter) {
        json.array(count: entries.count) { json, index in
            let entry = entries[index]
            let letters = Self.letters(read: entry.read)
            json.fragment(bytes[entry.range], writing: letters, at: entry.stateOffset..<(entry.stateOffset + letters.utf8CodeUnitCount))
        }
    }

    package var estimatedJSONSize: Int { bytes.count + entries.count + 2 }
}
