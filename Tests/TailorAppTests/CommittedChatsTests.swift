@testable import TailorApp
@testable import TailorDomain
import TailorStore
@testable import TailorStreams
@testable import TailorViews
import Testing

/// The writer's memory of committed chats, alone: only what a committed batch
/// produced comes in, and it is bounded.
@Suite struct CommittedChatsTests {
    let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 10)
    let bob = User(id: 2, name: "bob")

    @Test func chatsOfCommittedOutcomesAreKept() {
        let chats = CommittedChats()
        #expect(chats[7] == nil)
        chats.noteCommitted([.success(.chatOpened(chat, contact: bob, created: true))])
        #expect(chats[7] == chat)
        let other = Chat(id: 8, userA: 1, userB: 3, createdAt: 11)
        chats.noteCommitted([.success(.messagesRead(chat: other, reader: 1, count: 0, at: 12))])
        #expect(chats[8] == other)
    }

    @Test func aRefusedEventLeavesNothing() {
        let chats = CommittedChats()
        chats.noteCommitted([.failure(StoreError.notFound), .success(.sessionSeen)])
        #expect(chats[7] == nil)
    }

    @Test func pastItsLimitTheMemoryStartsOver() {
        let chats = CommittedChats(limit: 2)
        for id in 1...3 {
            chats.noteCommitted([.success(.chatOpened(Chat(id: id, userA: 1, userB: id + 1, createdAt: id), contact: bob, created: true))])
        }
        #expect(chats[1] == nil && chats[2] == nil)
        #expect(chats[3]?.userB == 4)
    }
}
