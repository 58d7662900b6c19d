/// What a chat's users ask for: `Event.chat` and `Event.message`.
public enum ChatEvent: Sendable {
    /// `user` opens the chat with the user named `contact` (created if new).
    case open(user: Int, contact: String)
    /// `user` blocks the other member of `chat`, or lifts the block.
    case block(user: Int, chat: Int, blocked: Bool)
}

public enum MessageEvent: Sendable {
    case send(chat: Int, sender: Int, text: String, clientID: String?)
    /// `reader` has read everything the other side sent in `chat`.
    case read(chat: Int, reader: Int)
}
