@testable import TailorDomain
import TailorFeed
import TailorStore
@testable import TailorViews
import Testing

/// The feed's encoding of changes gives back exactly what was written: the
/// server that wrote an entry applies its changes from memory, every other
/// server from these bytes, and both must follow the same changes.
@Suite struct ChangeEncodingTests {
    @Test func everyKindOfChangeComesBackEqual() throws {
        let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 1_700_000_000)
        let changes: [Change] = [
            .signedUp(user: 3),
            .chatOpened(chat),
            .messageSent(Message(id: 41, chatID: 7, senderID: 1, text: "quote \" backslash \\ é 日本 🧵 \u{2028} nul \u{00}",
                                 clientID: "c-1", sentAt: 1_700_000_001, isRead: false), in: chat),
            .messageSent(Message(id: 42, chatID: 7, senderID: 2, text: "", clientID: nil, sentAt: 1_700_000_002, isRead: false), in: chat),
            .messagesRead(chat: chat, reader: 2, at: 1_700_000_003),
            .orderChanged(user: 1, order: 9),
            .orderDeleted(user: 1, order: 9),
            .sessionEnded(tokenHash: Array(0...31)),
            .pushesQueued(message: 41, chat: chat, recipient: 2),
            .lastSeen(user: 2, at: 1_700_000_004),
        ]
        #expect(try ChangeEncoding.changes(from: ChangeEncoding.bytes(of: changes)) == changes)
        #expect(try ChangeEncoding.changes(from: ChangeEncoding.bytes(of: [])) == [])
    }

    @Test func bytesItDidNotWriteAreUnreadable() {
        #expect(throws: ChangeEncoding.Unreadable.self) { try ChangeEncoding.changes(from: Array(#"{"k":"signedUp"}"#.utf8)) }
    }
}
