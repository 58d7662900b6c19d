/// The data of a patch event (`chat.patch`, `orders.patch`, …): the
/// operations, the id of the event whose view model they apply to, and the
/// topic, since one stream may follow several chats or orders.
package struct PatchViewModel: JSONWritable {
    package let base: Int64
    /// RFC 6902 operations, written as a JSON array already.
    package let operations: [UInt8]
    package let topic: Topic

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("base", Int(base))
            $0.key("patch")
            $0.fragment(operations[...])
            $0.field("topic", topic.streamTopic.name)
        }
    }

    package var estimatedJSONSize: Int { operations.count + 64 }

    package init(base: Int64, operations: [UInt8], topic: Topic) {
        self.base = base
        self.operations = operations
        self.topic = topic
    }
}
