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
///
/// A value written before with a layout of its own (a chat list's row, a
/// chat screen's message) is one node here, a fragment, which names that
/// layout rather than copying its nodes: a list of a hundred rows is a
/// hundred nodes, and a patch looks inside only the rows that changed.
package struct JSONLayout: Sendable {
    package enum Kind: UInt8, Sendable {
        case object, array, value, fragment
    }

    /// A value written with its own layout, at `offset` of this document,
    /// placed by the node at `node`.
    package struct Fragment: Sendable {
        package let node: Int32
        package let written: Written
        package let offset: Int
    }

    /// A value's layout as it was written, with its bytes, once: shared by
    /// every document that places the value (a list's row, in each version
    /// of the list), so that placing it retains one reference. Its identity
    /// is the writing: two fragments of one `Written` are the same bytes,
    /// told without reading them.
    package final class Written: Sendable {
        package let layout: JSONLayout

        package init(_ layout: JSONLayout) {
            self.layout = layout
        }
    }

    package struct Node: Sendable {
        package let kind: Kind
        /// The value's bytes.
        package var bytes: Range<Int32>
        /// For a member of an object, its key's bytes between the quotes.
        package let key: Range<Int32>?
        /// The index of the first node after this one's members.
        package var end: Int32
        /// For a fragment, its place in `fragments`; -1 for any other node.
        package let fragment: Int32
    }

    package private(set) var nodes: [Node] = []
    /// The fragments in document order, each found from its node.
    private var fragments: [Fragment] = []
    /// Containers open while writing, innermost last.
    private var open: [Int32] = []

    /// Nodes and the bytes they take, for the memory a layout holds (a
    /// fragment's own layout is its writer's, shared, and counted there).
    package var byteCount: Int { nodes.count * MemoryLayout<Node>.stride + fragments.count * MemoryLayout<Fragment>.stride }

    /// The index of the document's own node.
    package static let root = 0

    /// The members of the container at `index`, in order.
    package func members(of index: Int) -> [Int] {
        var members: [Int] = []
        // At most the nodes inside: exactly that for a list of rows or scalars.
        members.reserveCapacity(Int(nodes[index].end) - index - 1)
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
        nodes.append(Node(kind: kind, bytes: Int32(offset)..<Int32(offset), key: key.map(Self.narrow), end: 0, fragment: -1))
    }

    package mutating func closed(at offset: Int) {
        let index = Int(open.removeLast())
        nodes[index].bytes = nodes[index].bytes.lowerBound..<Int32(offset)
        nodes[index].end = Int32(nodes.count)
    }

    package mutating func wrote(_ bytes: Range<Int>, key: Range<Int>?) {
        nodes.append(Node(kind: .value, bytes: Self.narrow(bytes), key: key.map(Self.narrow), end: Int32(nodes.count + 1), fragment: -1))
    }

    /// A value written before with its own layout (from its first byte),
    /// now at `offset`: one node, which names that layout.
    package mutating func wrote(_ written: Written, at offset: Int, key: Range<Int>?) {
        let root = written.layout.nodes[Self.root].bytes
        let index = Int32(nodes.count)
        nodes.append(Node(kind: .fragment, bytes: (root.lowerBound + Int32(offset))..<(root.upperBound + Int32(offset)),
                          key: key.map(Self.narrow), end: index + 1, fragment: Int32(fragments.count)))
        fragments.append(Fragment(node: index, written: written, offset: offset))
    }

    /// The fragment the node at `node` places, if it is one.
    package func fragment(at node: Int) -> Fragment? {
        let place = nodes[node].fragment
        return place < 0 ? nil : fragments[Int(place)]
    }

    /// Whether the node at `node` and the node at `otherNode` of `other`
    /// are fragments of one writing, so the same bytes.
    package func isFragment(_ node: Int, ofTheWritingOf otherNode: Int, in other: JSONLayout) -> Bool {
        let place = nodes[node].fragment, otherPlace = other.nodes[otherNode].fragment
        return place >= 0 && otherPlace >= 0 && fragments[Int(place)].written === other.fragments[Int(otherPlace)].written
    }

    private static func narrow(_ range: Range<Int>) -> Range<Int32> {
        Int32(range.lowerBound)..<Int32(range.upperBound)
    }
}
