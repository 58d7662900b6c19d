/// Where each value of a JSON document lies in its bytes, noted by the
/// `JSONWriter` while it writes them: objects and arrays with their members,
/// every other value as one piece (a pre-written fragment, such as a chat
/// message's JSON, included).
///
/// Two versions of a view model, each with its layout, are what a patch is
/// found from: values are compared as byte ranges, and the patch's values are
/// the new version's bytes, so nothing is parsed or written twice.
///
/// The nodes are in document order, each container before its members; a
/// node's `end` index is the first node after its members.
package struct JSONLayout: Sendable {
    package enum Kind: UInt8, Sendable {
        case object, array, value
    }

    package struct Node: Sendable {
        package let kind: Kind
        /// The value's bytes.
        package var bytes: Range<Int32>
        /// For a member of an object, its key's bytes between the quotes.
        package let key: Range<Int32>?
        /// The index of the first node after this one's members.
        package var end: Int32
    }

    package private(set) var nodes: [Node] = []
    /// Containers open while writing, innermost last.
    private var open: [Int32] = []

    /// Nodes and the bytes they take, for the memory a layout holds.
    package var byteCount: Int { nodes.count * MemoryLayout<Node>.stride }

    /// The index of the document's own node.
    package static let root = 0

    /// The members of the container at `index`, in order.
    package func members(of index: Int) -> [Int] {
        var members: [Int] = []
        var member = index + 1
        while member < Int(nodes[index].end) {
            members.append(member)
            member = Int(nodes[member].end)
        }
        return members
    }

    // MARK: Noting, for the writer

    package mutating func opened(_ kind: Kind, at offset: Int, key: Range<Int>?) {
        open.append(Int32(nodes.count))
        nodes.append(Node(kind: kind, bytes: Int32(offset)..<Int32(offset), key: key.map(Self.narrow), end: 0))
    }

    package mutating func closed(at offset: Int) {
        let index = Int(open.removeLast())
        nodes[index].bytes = nodes[index].bytes.lowerBound..<Int32(offset)
        nodes[index].end = Int32(nodes.count)
    }

    package mutating func wrote(_ bytes: Range<Int>, key: Range<Int>?) {
        nodes.append(Node(kind: .value, bytes: Self.narrow(bytes), key: key.map(Self.narrow), end: Int32(nodes.count + 1)))
    }

    /// A value written before with its own `layout` (from its first byte),
    /// now at `offset`: its nodes, moved there.
    package mutating func wrote(_ layout: JSONLayout, at offset: Int, key: Range<Int>?) {
        let (shift, base) = (Int32(offset), Int32(nodes.count))
        let moved = { (range: Range<Int32>) in (range.lowerBound + shift)..<(range.upperBound + shift) }
        for (index, node) in layout.nodes.enumerated() {
            nodes.append(Node(kind: node.kind, bytes: moved(node.bytes), key: index == 0 ? key.map(Self.narrow) : node.key.map(moved),
                              end: node.end + base))
        }
    }

    private static func narrow(_ range: Range<Int>) -> Range<Int32> {
        Int32(range.lowerBound)..<Int32(range.upperBound)
    }
}
