@testable import TailorDomain
import TailorStore
import TailorTestSupport
@testable import TailorViews
import Testing

/// A kept chat alone, without a database: changes from the feed in the order
/// several servers may commit them.
@Suite struct KeptChatTests {
    let alice = User(id: 1, name: "alice")
    let bob = User(id: 2, name: "bob")

    func empty(asOf position: Int) -> KeptChat {
        var cursors = ReadCursors()
        cursors.readThrough = [1: 0, 2: 0]
        return KeptChat(chat: Chat(id: 7, userA: 1, userB: 2, createdAt: 0), userA: alice, userB: bob, latest: [], hasEarlier: false,
                        cursors: cursors, unreadOfA: 0, unreadOfB: 0, recent: [], relations: ChatRelations(), asOf: FeedPlace(through: position))
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
        #expect(chat.unread(of: 2) == 2 && chat.unread(of: 1) == 1)
    }

    @Test func aMessageOlderThanAFullPageIsCountedButNotShown() {
        var chat = empty(asOf: 0)
        for index in 0..<KeptChat.pageSize + 1 { chat.sent(message(100 + index, from: 1)) }
        #expect(chat.hasEarlier && chat.latest.first?.id == 101)
        chat.sent(message(50, from: 1))
        #expect(chat.latest.first?.id == 101 && chat.latest.count == KeptChat.pageSize)
        #expect(chat.unread(of: 2) == KeptChat.pageSize + 2)
    }

    /// Several servers: a message whose id was drawn before its recipient's
    /// read mark is covered by it, whichever the feed brings first.
    @Test func readStateFollowsTheCursorsAlone() {
        var chat = empty(asOf: 0)
        chat.sent(message(10, from: 1))
        chat.sent(message(11, from: 2))
        chat.read(by: 2)
        #expect(chat.outline.states.map(\.isRead) == [true, false])
        #expect(chat.recent.map(\.isRead) == [true, false])
        #expect(chat.unread(of: 2) == 0 && chat.unread(of: 1) == 1)
        chat.sent(message(12, from: 1))
        #expect(chat.unread(of: 2) == 1 && chat.lastMessage?.isRead == false)
        chat.read(by: 1)
        #expect(chat.outline.states.map(\.isRead) == [true, true, false])
        // Drawn before bob's mark (its id is below his cursor), seen after it: read, not counted.
        chat.read(by: 2)
        chat.sent(message(9, from: 1))
        #expect(chat.unread(of: 2) == 0 && chat.outline.states.first?.isRead == true)
    }

    /// The kept chat and the database, given the same messages and read marks
    /// in the same order, say the same of every message and count the same
    /// unread, on both engines: one rule, in Swift and in SQL. A chat read
    /// anew with the others of a user (`KeptChat.read`) is the one kept.
    @Test(arguments: Backend.allCases)
    func keptReadStateIsTheDatabases(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let alice = try store.insertUser(name: "alice", at: 1)
        let bob = try store.insertUser(name: "bob", at: 1)
        let chat = try store.findOrCreateChat(between: alice.id, and: bob.id, at: 1).chat
        let carol = try store.insertUser(name: "carol", at: 1)
        let other = try store.findOrCreateChat(between: carol.id, and: alice.id, at: 1).chat
        var kept = try #require(try KeptChat.read([chat.id], from: store, asOf: FeedPlace(through: 0))[chat.id])
        func same(_ step: String) throws {
            let page = try store.messagePageOutline(chat: chat.id, before: nil, limit: KeptChat.pageSize)
            #expect(kept.outline == page, "after \(step)")
            let read = try KeptChat.read([other.id, chat.id, 999_999], from: store, asOf: FeedPlace(through: 0))
            #expect(read.count == 2, "a chat that does not exist is left out")
            let fresh = try #require(read[chat.id])
            #expect(fresh.outline == kept.outline && fresh.recent == kept.recent && fresh.relations == kept.relations, "after \(step)")
            #expect(fresh.hasEarlier == kept.hasEarlier && fresh.cursors == kept.cursors, "after \(step)")
            for user in [alice.id, bob.id] { #expect(fresh.unread(of: user) == kept.unread(of: user), "after \(step)") }
            for user in [alice.id, bob.id] {
                #expect(kept.unread(of: user) == (try store.unreadCount(chat: chat.id, reader: user)), "after \(step)")
            }
            for message in kept.recent {
                #expect(message.isRead == (try store.message(id: message.id))?.isRead, "message \(message.id) after \(step)")
            }
        }
        let steps: [(String, Int, Bool)] = [("a", alice.id, false), ("b", bob.id, false), ("a", alice.id, false), ("read", bob.id, true),
                                            ("b", bob.id, false), ("read", alice.id, true), ("read", alice.id, true), ("a", alice.id, false),
                                            ("a", alice.id, false), ("b", bob.id, false), ("read", bob.id, true)]
        for (index, (name, user, marksRead)) in steps.enumerated() {
            if marksRead {
                _ = try writer.transaction { try store.markRead(chat: chat.id, reader: user, at: 2).value() }
                kept.read(by: user)
            } else {
                let sent = try writer.transaction {
                    try store.insertMessage(chat: chat.id, sender: user, text: "\(name)\(index)", clientID: nil, at: 2).value()
                }
                kept.sent(sent.message)
            }
            try same("step \(index) (\(name))")
        }
    }
}
