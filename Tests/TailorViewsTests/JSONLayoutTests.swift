import TailorLoop
@testable import TailorViews
import Testing

/// A layout knows the writing its fragments came from: a patch takes two
/// fragments of one writing as the same bytes without reading them, and
/// reads fragments of different writings.
@Suite struct JSONLayoutTests {
    /// A value written once, with its layout, as a list's row is.
    private struct Written {
        let bytes: [UInt8]
        let layout: JSONLayout.Written

        init(_ value: some JSONWritable) {
            let (bytes, layout) = JSONWriter.bytesAndLayout(of: value)
            self.bytes = bytes
            self.layout = JSONLayout.Written(layout)
        }
    }

    /// An array of values written before, placed as fragments.
    private struct Rows: JSONWritable {
        let rows: [Written]

        func write(to json: inout JSONWriter) {
            json.array(count: rows.count) { json, index in rows[index].bytes.withUnsafeBytes { json.fragment($0, layout: { rows[index].layout }) } }
        }
    }

    private func version(_ rows: Written...) -> JSONPatch.Version {
        let (bytes, layout) = JSONWriter.bytesAndLayout(of: Rows(rows: rows))
        return JSONPatch.Version(json: SharedBytes(bytes), layout: layout)
    }

    private func patch(from old: JSONPatch.Version, to new: JSONPatch.Version) -> String? {
        JSONPatch.operations(from: old, to: new, limit: .max).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func fragmentsOfOneWritingAreToldApartFromOthers() {
        let first = Written(ActionViewModel.get("/api/chats/1"))
        let again = Written(ActionViewModel.get("/api/chats/1"))
        let before = version(first, first)
        let after = version(again, first)
        // Nodes 1 and 2 are the array's two members.
        #expect(before.layout.isFragment(2, ofTheWritingOf: 2, in: after.layout))
        #expect(before.layout.isFragment(1, ofTheWritingOf: 2, in: after.layout))
        #expect(!before.layout.isFragment(1, ofTheWritingOf: 1, in: after.layout))
        // The document's own node is no fragment.
        #expect(!before.layout.isFragment(0, ofTheWritingOf: 0, in: after.layout))
    }

    @Test func fragmentsOfOtherWritingsAreCompared() {
        let first = Written(ActionViewModel.get("/api/chats/1"))
        let same = Written(ActionViewModel.get("/api/chats/1"))
        let other = Written(ActionViewModel.get("/api/chats/2"))
        #expect(patch(from: version(first, first), to: version(same, first)) == "[]")
        #expect(patch(from: version(first, first), to: version(first, other))
            == #"[{"op":"replace","path":"/1/href","value":"/api/chats/2"}]"#)
    }
}
