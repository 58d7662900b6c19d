/// What a chat screen and a chat list item show of the contact: `state` for
/// clients to style by, `text` ready to show (null for a contact never seen).
package struct ContactStatusViewModel: JSONWritable, Equatable, Sendable {
    /// `typing`, `online` or `away`.
    package let state: String
    package let text: String?

    package static let typing = ContactStatusViewModel(state: "typing", text: "typing…")
    package static let online = ContactStatusViewModel(state: "online", text: "online")

    /// Away, last seen as `lastSeen` says ("last seen 14:05"), or never seen.
    package init(away lastSeen: String?) {
        self.init(state: "away", text: lastSeen)
    }

    private init(state: String, text: String?) {
        self.state = state
        self.text = text
    }

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("state", state)
            $0.field("text", text)
        }
    }
}
