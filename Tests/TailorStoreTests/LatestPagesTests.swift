@testable import TailorStore
import TailorTestSupport
import Testing

/// The latest pages of many chats, read in one query, are each the page a
/// read of its chat alone gives: empty, shorter than a page, a page, one
/// more, and many pages long, read states included.
@Suite struct LatestPagesTests {
    @Test(arguments: Backend.allCases)
    func manyChatsLatestPagesAreEachChatsOwn(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let limit = 5
        let alice = try store.insertUser(name: "alice", at: 1)
        var chats: [Int] = []
        for (index, count) in [0, 3, limit, limit + 1, 4 * limit + 2].enumerated() {
            let contact = try store.insertUser(name: "contact\(index)", at: 1)
            let chat = try writer.transaction { try store.findOrCreateChat(between: alice.id, and: contact.id, at: 2).chat }
            try writer.transaction {
                for number in 0..<count {
                    let sender = number % 3 == 0 ? contact.id : alice.id
                    _ = try store.insertMessage(chat: chat.id, sender: sender, text: "m\(number)", clientID: nil, at: 3 + number).value()
                }
            }
            // Alice has read some of the contact's messages, not all.
            if count > 2 { _ = try writer.transaction { try store.markRead(chat: chat.id, reader: alice.id, at: 100).value() } }
            try writer.transaction {
                _ = try store.insertMessage(chat: chat.id, sender: contact.id, text: "late", clientID: nil, at: 200).value()
            }
            chats.append(chat.id)
        }
        var cursors: [Int: ReadCursors] = [:]
        for chat in chats { cursors[chat] = try store.readCursors(of: chat) }
        let pages = try store.latestPages(ofChats: chats + [987_654], limit: limit, cursors: cursors)
        for chat in chats {
            let alone = try store.messagePageOutline(chat: chat, before: nil, limit: limit)
            #expect(pages[chat] == alone, "chat \(chat)")
        }
        #expect(pages[987_654] == MessagePageOutline(states: [], hasEarlier: false), "a chat that does not exist has an empty page")
        #expect(try store.latestPages(ofChats: [], limit: limit, cursors: [:]).isEmpty)
    }
}
