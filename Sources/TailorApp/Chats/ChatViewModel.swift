/// One chat's screen (topic `chat:ID`): its messages oldest first.
struct ChatViewModel: JSONWritable, Equatable, Sendable {
    struct Actions: JSONWritable, Equatable, Sendable {
        let send: ActionViewModel
        let markRead: ActionViewModel

        func write(to json: inout JSONWriter) {
            json.object {
                $0.field("markRead", markRead)
                $0.field("send", send)
            }
        }
    }

    let id: String
    let title: String
    let unreadMessageCount: Int
    /// Each a `MessageViewModel`'s JSON, kept between rebuilds (`MessagePages`).
    let messages: MessageList
    /// The page before this one, or null.
    let earlier: ActionViewModel?
    let actions: Actions

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("actions", actions)
            $0.field("earlier", earlier)
            $0.field("id", id)
            $0.field("messages", messages)
            $0.field("title", title)
            $0.field("unreadMessageCount", unreadMessageCount)
        }
    }

    var estimatedJSONSize: Int { messages.estimatedJSONSize + 512 }
}

/// A message as its reader sees it: `sender` is `me` or `other`.
struct MessageViewModel: JSONWritable, Equatable, Sendable {
    let id: String
    let text: String
    let sender: String
    let senderName: String
    /// `sent` or `read`; clients use `sending` and `failed` for their own copies.
    let state: String
    let time: String
    let sentAt: String

    func write(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("sender", sender)
            $0.field("senderName", senderName)
            $0.field("sentAt", sentAt)
            $0.field("state", state)
            $0.field("text", text)
            $0.field("time", time)
        }
    }
}

/// The total of unread messages (topic `badge`).
struct BadgeViewModel: JSONWritable, Equatable, Sendable {
    let unread: Int

    func write(to json: inout JSONWriter) {
        json.object { $0.field("unread", unread) }
    }
}
