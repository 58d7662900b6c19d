/// One chat's screen (topic `chat:ID`): its messages oldest first.
package struct ChatViewModel: JSONWritable, Equatable, Sendable {
    package struct Actions: JSONWritable, Equatable, Sendable {
        package let send: ActionViewModel
        package let markRead: ActionViewModel
        /// Says the viewer is typing: at most every 3 s while the composer holds text.
        package let typing: ActionViewModel
        /// Blocks the contact (null once the viewer has), or lifts the block (null until then).
        package let block: ActionViewModel?
        package let unblock: ActionViewModel?

        package func write(to json: inout JSONWriter) {
            json.object {
                $0.field("block", block)
                $0.field("markRead", markRead)
                $0.field("send", send)
                $0.field("typing", typing)
                $0.field("unblock", unblock)
            }
        }
    }

    package let id: String
    package let title: String
    /// Null while the contact's presence is not shown (`ChatRelations.showsPresence`).
    package let contactStatus: ContactStatusViewModel?
    /// Whether the viewer blocked the contact: no message is taken either way then.
    package let blocked: Bool
    package let unreadMessageCount: Int
    /// Each a `MessageViewModel`'s JSON, kept between rebuilds (`MessagePages`).
    package let messages: MessageList
    /// The page before this one, or null.
    package let earlier: ActionViewModel?
    package let actions: Actions

    package func write(to json: inout JSONWriter) {
        json.object {
            $0.field("actions", actions)
            $0.field("blocked", blocked)
            $0.field("contactStatus", contactStatus)
            $0.field("earlier", earlier)
            $0.field("id", id)
            $0.field("messages", messages)
            $0.field("title", title)
            $0.field("unreadMessageCount", unreadMessageCount)
        }
    }

    package var estimatedJSONSize: Int { messages.estimatedJSONSize + 512 }
}

/// A message as its reader sees it: `sender` is `me` or `other`.
package struct MessageViewModel: JSONWritable, Equatable, Sendable {
    package let id: String
    package let text: String
    package let sender: String
    package let senderName: String
    /// `sent` or `read`; clients use `sending` and `failed` for their own copies.
    package let state: String
    package let time: String
    package let sentAt: String

    package func write(to json: inout JSONWriter) {
        var stateAt = 0
        write(to: &json, stateAt: &stateAt)
    }

    /// Writes the message; `stateAt` is set to where the letters of its
    /// state begin in the writer's bytes, for a list to write them anew.
    package func write(to json: inout JSONWriter, stateAt: inout Int) {
        json.object {
            $0.field("id", id)
            $0.field("sender", sender)
            $0.field("senderName", senderName)
            $0.field("sentAt", sentAt)
            $0.key("state")
            // Just past the opening quote.
            stateAt = $0.bytes.count + 1
            $0.string(state)
            $0.field("text", text)
            $0.field("time", time)
        }
    }
}

/// The total of unread messages (topic `badge`).
package struct BadgeViewModel: JSONWritable, Equatable, Sendable {
    package let unread: Int

    package func write(to json: inout JSONWriter) {
        json.object { $0.field("unread", unread) }
    }
}
