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

    /// The reads of many chats are one statement each, whatever the ids: a
    /// connection keeps each text it prepared, and one text a list of ids
    /// would keep a statement for every user ever read.
    @Test(arguments: Backend.allCases)
    func readsOfManyChatsPrepareOneStatementEach(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let alice = try store.insertUser(name: "alice", at: 1)
        var chats: [Int] = []
        for index in 0..<4 {
            let contact = try store.insertUser(name: "contact\(index)", at: 1)
            chats.append(try writer.transaction { try store.findOrCreateChat(between: alice.id, and: contact.id, at: 2).chat.id })
        }
        func prepared() -> Int {
            (writer as? SQLiteConnection)?.preparedStatementCount ?? (writer as? PostgresConnection)?.preparedStatementCount ?? -1
        }
        func readAll(_ ids: [Int]) throws {
            _ = try store.chats(ids: ids)
            _ = try store.users(ids: ids)
            _ = try store.members(ofChats: ids)
            _ = try store.messages(ids: ids)
            _ = try store.latestPages(ofChats: ids, limit: 5, cursors: [:])
            _ = try store.disabled(among: ids)
        }
        try readAll(chats)
        let afterFirst = prepared()
        for count in 1..<chats.count { try readAll(Array(chats.prefix(count))) }
        try readAll(chats.reversed())
        #expect(prepared() == afterFirst)
        #expect(try store.chats(ids: chats.reversed()).map(\.id).sorted() == chats.sorted())
    }
}
