@testable import TailorDomain
import TailorStore
@testable import TailorViews
import Testing

/// A kept chat alone, without a database: changes from the feed in the order
/// several servers may commit them.
@Suite struct KeptChatTests {
    let alice = User(id: 1, name: "alice")
    let bob = User(id: 2, name: "bob")

    func empty(asOf position: Int) -> KeptChat {
        KeptChat(chat: Chat(id: 7, userA: 1, userB: 2, createdAt: 0), userA: alice, userB: bob, latest: [], hasEarlier: false,
                 unreadOfA: 0, unreadOfB: 0, recent: [], relations: ChatRelations(), asOf: position)
    }

    func message(_ id: Int, from sender: Int) -> Message {
        Message(id: id, chatID: 7, senderID: sender, text: "m\(id)", clientID: nil, sentAt: id, isRead: false)
    }

    @Test func messagesAreKeptInIdOrderWhateverOrderTheyCommitIn() {
        var chat = empty(asOf: 0)
        chat.sent(message(11, from: 1))
        chat.sent(message(10, from: 2))
        chat.sent(message(12, from: 1))
        #expect(chat.latest.map(\.id) == [10, 11, 12])
        #expect(chat.recent.map(\.id) == [10, 11, 12])
        #expect(chat.unreadOfB == 2 && chat.unreadOfA == 1)
    }

    @Test func aMessageOlderThanAFullPageIsCountedButNotShown() {
        var chat = empty(asOf: 0)
        for index in 0..<KeptChat.pageSize + 1 { chat.sent(message(100 + index, from: 1)) }
        #expect(chat.hasEarlier && chat.latest.first?.id == 101)
        chat.sent(message(50, from: 1))
        #expect(chat.latest.first?.id == 101 && chat.latest.count == KeptChat.pageSize)
        #expect(chat.unreadOfB == KeptChat.pageSize + 2)
    }
}
