import TailorDomain
import TailorStore
import Testing

/// Whom an entry concerns: the members of the chats it changed and the
/// owners of the orders, each once; everyone for what any server may hold
/// (credentials), what reaches contacts the entry does not name (presence),
/// and new users and chats, which every server keeps.
@Suite struct ChangeAudienceTests {
    private let chat = Chat(id: 7, userA: 4, userB: 2, createdAt: 1)

    @Test func theMembersOfTheChatsAndTheOwnersOfTheOrdersOnceEach() {
        let message = Message(id: 1, chatID: 7, senderID: 4, text: "hi", clientID: nil, sentAt: 1, isRead: false)
        #expect(ChangeAudience.users(of: [.messageSent(message, in: chat), .pushesQueued(message: 1, chat: chat, recipient: 2),
                                          .orderChanged(user: 9, order: 3), .messagesRead(chat: chat, reader: 2, at: 2)]) == [2, 4, 9])
        #expect(ChangeAudience.users(of: [.chatBlocked(chat: chat, by: 4, blocked: true)]) == [2, 4])
        #expect(ChangeAudience.users(of: [.orderDeleted(user: 3, order: 1)]) == [3])
    }

    @Test func everyoneForCredentialsPresenceAndNewUsersAndChats() {
        for change: Change in [.sessionEnded(tokenHash: [1]), .accountDisabled(user: 2), .lastSeen(user: 2, at: 1),
                               .privacyChanged(user: 2, showsPresence: false), .signedUp(user: 5), .chatOpened(chat)] {
            #expect(ChangeAudience.users(of: [.orderChanged(user: 9, order: 3), change]) == nil, "\(change)")
        }
    }
}
