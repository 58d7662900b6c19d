import Glibc
import TailorLoop

/// The change from one version of a view model to the next as RFC 6902 JSON
/// Patch operations (`add`, `remove`, `replace`, with RFC 6901 pointers).
///
/// Found from the two versions' layouts, not by reading their text: values
/// are compared as byte ranges, objects member by member, and arrays as
/// sequences whose longest common run is kept, so that a message added to a
/// chat is one `add`, an order moved out of a filtered list one `remove` at
/// its index, and a changed member one `replace` (or, inside an object, what
/// changed in it). Operations apply in order, as RFC 6902 says, so each index
/// is the one the array has at that step.
package enum JSONPatch {
    /// One version of a document.
    package struct Version: Sendable {
        package let json: SharedBytes
        package let layout: JSONLayout

        package init(json: SharedBytes, layout: JSONLayout) {
            self.json = json
            self.layout = layout
        }
    }

    /// Array lengths past which the middle part that changed is replaced
    /// member by member instead of aligned: aligning costs their product.
    package static let alignmentLimit = 40_000

    /// The operations, as a JSON array, that turn `old` into `new`; nil when
    /// they would take `limit` bytes or more (the whole new version is then
    /// the smaller event).
    package static func operations(from old: Version, to new: Version, limit: Int) -> [UInt8]? {
        let operations = withExtendedLifetime((old, new)) {
            var differ = Differ(old: Differ.Side(bytes: old.json.bytes, layout: old.layout),
                                new: Differ.Side(bytes: new.json.bytes, layout: new.layout), limit: limit)
            differ.compare(JSONLayout.root, JSONLayout.root)
            return differ.finish()
        }
        guard operations.count < limit else { return nil }
        return operations
    }
}

/// Walks two layouts side by side, writing operations as it finds them.
/// Whoever makes one keeps the bytes its sides point into alive.
private struct Differ {
    /// A version's bytes with a layout of them: the whole document's, or a
    /// fragment's, with the fragment's bytes.
    struct Side {
        let bytes: UnsafeRawBufferPointer
        let layout: JSONLayout

        /// The side inside the fragment at `node`, and the node of its value there.
        func inside(_ node: Int) -> (Side, Int) {
            guard let fragment = layout.fragment(at: node) else { return (self, node) }
            return (Side(bytes: UnsafeRawBufferPointer(rebasing: bytes[fragment.offset...]), layout: fragment.written.layout), JSONLayout.root)
        }
    }

    private let old: UnsafeRawBufferPointer
    private let new: UnsafeRawBufferPointer
    private let oldLayout: JSONLayout
    private let newLayout: JSONLayout
    private let limit: Int
    /// The pointer of the value being compared.
    private var path: [UInt8] = []
    private var output: [UInt8] = [UInt8(ascii: "[")]

    init(old: Side, new: Side, limit: Int) {
        self.old = old.bytes
        self.new = new.bytes
        oldLayout = old.layout
        newLayout = new.layout
        self.limit = limit
    }

    private var overLimit: Bool { output.count >= limit }

    mutating func compare(_ oldNode: Int, _ newNode: Int) {
        guard !overLimit else { return }
        switch (oldLayout.nodes[oldNode].kind, newLayout.nodes[newNode].kind) {
        // Two containers are compared by their members, not first as bytes:
        // a document is compared because it changed, and reading it up to
        // its change and then again member by member would read it twice.
        case (.object, .object): compareObjects(oldNode, newNode)
        case (.array, .array): compareArrays(oldNode, newNode)
        case _ where same(oldNode, newNode): return
        case (.fragment, _), (_, .fragment): compareInside(oldNode, newNode)
        default: write("replace", value: newNode)
        }
    }

    /// Two values of which one or both are fragments, compared by their
    /// own layouts: the operations go on from this path into this output.
    private mutating func compareInside(_ oldNode: Int, _ newNode: Int) {
        let (oldSide, oldStart) = Side(bytes: old, layout: oldLayout).inside(oldNode)
        let (newSide, newStart) = Side(bytes: new, layout: newLayout).inside(newNode)
        var inner = Differ(old: oldSide, new: newSide, limit: limit)
        inner.path = path
        inner.output = output
        output = []
        inner.compare(oldStart, newStart)
        output = inner.output
    }

    // MARK: Objects

    private mutating func compareObjects(_ oldNode: Int, _ newNode: Int) {
        // Most often the two have the same keys in the same order (a view
        // model's fields): paired by place, with no search.
        if haveTheSameKeys(oldNode, newNode) {
            var previous = oldNode + 1, member = newNode + 1
            while member < Int(newLayout.nodes[newNode].end) {
                atKey(of: member, in: newLayout, new) { $0.compare(previous, member) }
                previous = Int(oldLayout.nodes[previous].end)
                member = Int(newLayout.nodes[member].end)
            }
            return
        }
        let oldMembers = oldLayout.members(of: oldNode)
        let newMembers = newLayout.members(of: newNode)
        for member in oldMembers where !newMembers.contains(where: { sameKey(member, $0) }) {
            atKey(of: member, in: oldLayout, old) { $0.write("remove", value: nil) }
        }
        for member in newMembers {
            if let previous = oldMembers.first(where: { sameKey($0, member) }) {
                atKey(of: member, in: newLayout, new) { $0.compare(previous, member) }
            } else {
                atKey(of: member, in: newLayout, new) { $0.write("add", value: member) }
            }
        }
    }

    /// Whether two objects have the same keys in the same order.
    private func haveTheSameKeys(_ oldNode: Int, _ newNode: Int) -> Bool {
        let oldEnd = Int(oldLayout.nodes[oldNode].end), newEnd = Int(newLayout.nodes[newNode].end)
        var previous = oldNode + 1, member = newNode + 1
        while previous < oldEnd && member < newEnd {
            guard sameKey(previous, member) else { return false }
            previous = Int(oldLayout.nodes[previous].end)
            member = Int(newLayout.nodes[member].end)
        }
        return previous == oldEnd && member == newEnd
    }

    /// Whether an old and a new member of an object have the same key.
    private func sameKey(_ oldMember: Int, _ newMember: Int) -> Bool {
        equal(slice(old, oldLayout.nodes[oldMember].key!), slice(new, newLayout.nodes[newMember].key!))
    }

    /// Runs `body` with the path extended by `member`'s key, escaped as RFC 6901 says.
    private mutating func atKey(of member: Int, in layout: JSONLayout, _ bytes: UnsafeRawBufferPointer, _ body: (inout Differ) -> Void) {
        let length = path.count
        path.append(UInt8(ascii: "/"))
        for byte in slice(bytes, layout.nodes[member].key!) {
            switch byte {
            case UInt8(ascii: "~"): path += [UInt8(ascii: "~"), UInt8(ascii: "0")]
            case UInt8(ascii: "/"): path += [UInt8(ascii: "~"), UInt8(ascii: "1")]
            default: path.append(byte)
            }
        }
        body(&self)
        path.removeSubrange(length...)
    }

    // MARK: Arrays

    private enum Step {
        case keep
        case remove
        case add(Int)
        /// The old member at this index becomes the new one.
        case change(Int, Int)
    }

    private mutating func compareArrays(_ oldNode: Int, _ newNode: Int) {
        let oldMembers = oldLayout.members(of: oldNode)
        let newMembers = newLayout.members(of: newNode)
        var length = oldMembers.count
        var index = 0
        for step in steps(from: oldMembers, to: newMembers) {
            guard !overLimit else { return }
            switch step {
            case .keep:
                index += 1
            case .remove:
                atIndex(index, appending: false) { $0.write("remove", value: nil) }
                length -= 1
            case .add(let member):
                atIndex(index, appending: index == length) { $0.write("add", value: member) }
                index += 1
                length += 1
            case .change(let previous, let member):
                atIndex(index, appending: false) { $0.compare(previous, member) }
                index += 1
            }
        }
    }

    /// What becomes of each member, in order: the unchanged start and end are
    /// kept, and between them the longest common run of members, found by
    /// aligning the two (a removal followed by an addition at one index is a change).
    private func steps(from oldMembers: [Int], to newMembers: [Int]) -> [Step] {
        var prefix = 0
        while prefix < min(oldMembers.count, newMembers.count), same(oldMembers[prefix], newMembers[prefix]) { prefix += 1 }
        var suffix = 0
        while suffix < min(oldMembers.count, newMembers.count) - prefix,
              same(oldMembers[oldMembers.count - 1 - suffix], newMembers[newMembers.count - 1 - suffix]) { suffix += 1 }
        let oldMiddle = Array(oldMembers[prefix..<oldMembers.count - suffix])
        let newMiddle = Array(newMembers[prefix..<newMembers.count - suffix])
        var steps = Array(repeating: Step.keep, count: prefix)
        if oldMiddle.count == 1 && newMiddle.count == 1 {
            // One member changed where it is (a row of a list, the last message of a screen).
            steps.append(.change(oldMiddle[0], newMiddle[0]))
        } else if let shifted = shifted(oldMiddle, newMiddle) {
            steps += shifted
        } else if oldMiddle.count * newMiddle.count <= JSONPatch.alignmentLimit {
            steps += aligned(oldMiddle, newMiddle)
        } else {
            let paired = min(oldMiddle.count, newMiddle.count)
            steps += (0..<paired).map { Step.change(oldMiddle[$0], newMiddle[$0]) }
            steps += Array(repeating: Step.remove, count: oldMiddle.count - paired)
            steps += newMiddle[paired...].map { Step.add($0) }
        }
        steps += Array(repeating: Step.keep, count: suffix)
        return steps
    }

    /// The common changes of a list without aligning it: members dropped at
    /// its start and others added at its end (a chat screen that shows the
    /// latest messages), members added at its start (a list newest first), or
    /// one member moved to the start (a chat list after a message: the chat
    /// leaves its place, or the page's end, for the top). Nil when the runs
    /// are not one of those.
    private func shifted(_ oldMembers: [Int], _ newMembers: [Int]) -> [Step]? {
        guard let firstNew = newMembers.first, let firstOld = oldMembers.first else { return nil }
        // Trimmed of what the two share at both ends, a move to the top is the
        // old run less its last member, after the new first one.
        if oldMembers.count == newMembers.count, oldMembers.count > 1,
           (0..<oldMembers.count - 1).allSatisfy({ same(oldMembers[$0], newMembers[$0 + 1]) }) {
            return [.add(firstNew)] + Array(repeating: .keep, count: oldMembers.count - 1) + [.remove]
        }
        if let dropped = oldMembers.firstIndex(where: { same($0, firstNew) }) {
            let kept = oldMembers.count - dropped
            guard kept <= newMembers.count, (0..<kept).allSatisfy({ same(oldMembers[dropped + $0], newMembers[$0]) }) else { return nil }
            return Array(repeating: .remove, count: dropped) + Array(repeating: .keep, count: kept) + newMembers[kept...].map { Step.add($0) }
        }
        if let added = newMembers.firstIndex(where: { same(firstOld, $0) }), added + oldMembers.count <= newMembers.count,
           (0..<oldMembers.count).allSatisfy({ same(oldMembers[$0], newMembers[added + $0]) }) {
            return newMembers[..<added].map { Step.add($0) } + Array(repeating: .keep, count: oldMembers.count)
                + newMembers[(added + oldMembers.count)...].map { Step.add($0) }
        }
        return nil
    }

    /// Steps along a longest common subsequence of the two runs of members.
    private func aligned(_ oldMembers: [Int], _ newMembers: [Int]) -> [Step] {
        let oldHashes = oldMembers.map { hash(old, oldLayout.nodes[$0].bytes) }
        let newHashes = newMembers.map { hash(new, newLayout.nodes[$0].bytes) }
        let width = newMembers.count + 1
        // common[i * width + j]: the longest common run of oldMembers[i...] and newMembers[j...].
        var common = [Int32](repeating: 0, count: (oldMembers.count + 1) * width)
        for i in stride(from: oldMembers.count - 1, through: 0, by: -1) {
            for j in stride(from: newMembers.count - 1, through: 0, by: -1) {
                common[i * width + j] = oldHashes[i] == newHashes[j]
                    ? common[(i + 1) * width + j + 1] + 1
                    : max(common[(i + 1) * width + j], common[i * width + j + 1])
            }
        }
        var steps: [Step] = []
        var i = 0
        var j = 0
        // A member removed just before: an addition at its place is a change.
        var removed: Int?
        while i < oldMembers.count || j < newMembers.count {
            if i < oldMembers.count, j < newMembers.count, oldHashes[i] == newHashes[j], same(oldMembers[i], newMembers[j]) {
                steps.append(.keep)
                removed = nil
                i += 1
                j += 1
            } else if i < oldMembers.count, j == newMembers.count || common[(i + 1) * width + j] >= common[i * width + j + 1] {
                steps.append(.remove)
                removed = oldMembers[i]
                i += 1
            } else {
                if let previous = removed {
                    steps[steps.count - 1] = .change(previous, newMembers[j])
                    removed = nil
                } else {
                    steps.append(.add(newMembers[j]))
                }
                j += 1
            }
        }
        return steps
    }

    /// Runs `body` with the path extended by an array index, or by `-` (the
    /// end of the array) for an addition there.
    private mutating func atIndex(_ index: Int, appending: Bool, _ body: (inout Differ) -> Void) {
        let length = path.count
        path.append(UInt8(ascii: "/"))
        path += appending ? Array("-".utf8) : Array(String(index).utf8)
        body(&self)
        path.removeSubrange(length...)
    }

    // MARK: Output

    /// One operation at the current path, with the new version's `value` node.
    /// The operations as a JSON array.
    mutating func finish() -> [UInt8] {
        output.append(UInt8(ascii: "]"))
        return output
    }

    private mutating func write(_ operation: StaticString, value: Int?) {
        if output.count > 1 { output.append(UInt8(ascii: ",")) }
        output += Array(#"{"op":""#.utf8)
        operation.withUTF8Buffer { output += $0 }
        output += Array(#"","path":""#.utf8)
        // Keys and indices hold no quote or backslash: the pointer is a JSON string as it is.
        output += path
        output.append(UInt8(ascii: "\""))
        if let value {
            output += Array(#","value":"#.utf8)
            output += slice(new, newLayout.nodes[value].bytes)
        }
        output.append(UInt8(ascii: "}"))
    }

    // MARK: Bytes

    /// Whether an old and a new value are the same bytes: two fragments of
    /// one writing are, unread (a list's rows that stayed as they were).
    private func same(_ oldNode: Int, _ newNode: Int) -> Bool {
        if oldLayout.isFragment(oldNode, ofTheWritingOf: newNode, in: newLayout) { return true }
        return equal(slice(old, oldLayout.nodes[oldNode].bytes), slice(new, newLayout.nodes[newNode].bytes))
    }

    private func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    private func slice(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int32>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[Int(range.lowerBound)..<Int(range.upperBound)])
    }

    private func hash(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int32>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: slice(bytes, range))
        return hasher.finalize()
    }
}
