/// What a followed order or chat becomes when it is deleted.
struct DeletedViewModel: JSONWritable, Sendable {
    let id: String
    let deleted: Bool

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("deleted", deleted)
            $0.field("id", id)
        }
    }
}
