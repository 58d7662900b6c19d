/// What a followed order or chat becomes when it is deleted.
package struct DeletedViewModel: JSONWritable, Sendable {
    package let id: String
    package let deleted: Bool

    package init(id: String, deleted: Bool) {
        self.id = id
        self.deleted = deleted
    }

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("deleted", deleted)
            $0.field("id", id)
        }
    }
}
