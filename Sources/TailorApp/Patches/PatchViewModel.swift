/// The data of a patch event (`chat.patch`, `orders.patch`, …): the
/// operations, the id of the event whose view model they apply to, and the
/// topic, since one stream may follow several chats or orders.
struct PatchViewModel: JSONWritable {
    let base: Int64
    /// RFC 6902 operations, written as a JSON array already.
    let operations: [UInt8]
    let topic: Topic

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("base", Int(base))
            $0.key("patch")
            $0.fragment(operations[...])
            $0.field("topic", StreamEvent.topicName(of: topic))
        }
    }

    var estimatedJSONSize: Int { operations.count + 64 }
}
