import Foundation
import Synchronization
@testable import TailorApp
@testable import TailorDomain
import TailorStore
import TailorTestSupport
@testable import TailorStreams
@testable import TailorViews
import Testing

/// The kept chats against a real SQLite file: after every change the writer
/// makes, what they show must be what the database answers.
@Suite final class ChatDirectoryTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-directory-\(UUID().uuidString)")

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// What the kept chats show of `user` equals what the database answers.
    func expectKept(_ user: User, in writer: Writer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = writer.store
        let summaries = try store.chatSummaries(of: user.id)
        #expect(writer.directory.summaries(of: user.id) == summaries, sourceLocation: sourceLocation)
        #expect(try writer.directory.unreadTotal(of: user.id) == store.unreadTotal(of: user.id), sourceLocation: sourceLocation)
        for summary in summaries {
            let screen = try #require(writer.directory.screen(of: summary.chatID, for: user.id), sourceLocation: sourceLocation)
            let page = try store.messagePageOutline(chat: summary.chatID, before: nil, limit: MessagePageRequest.latest.limit)
            #expect(screen.page == page, sourceLocation: sourceLocation)
            #expect(try screen.unread == store.unreadCount(chat: summary.chatID, reader: user.id), sourceLocation: sourceLocation)
            // The user as the database holds them now: a privacy setting may have changed since `user` was read.
            #expect(try screen.viewer == store.user(id: user.id) && screen.contact == summary.contact, sourceLocation: sourceLocation)
            let recent = try page.states.suffix(KeptChat.recentCount).compactMap { try store.message(id: $0.id) }
            #expect(screen.recent == recent, sourceLocation: sourceLocation)
        }
    }

    @Test func keptChatsShowWhatTheDatabaseShowsAfterEveryChange() throws {
        let writer = try Writer(path: folder.appendingPathComponent("kept.sqlite").path, directory: ChatDirectory())
        defer { writer.database.close() }
        let alice = try writer.signUp("alice")
        let bob = try writer.signUp("bob")
        let carol = try writer.signUp("carol")
        let everyone = [alice, bob, carol]
        for user in everyone { try expectKept(user, in: writer) }

        let chat = try writer.open(alice, with: "bob")
        for user in everyone { try expectKept(user, in: writer) }
        try writer.send("hi bob", from: alice, in: chat, clientID: "c1")
        try writer.send("hi bob", from: alice, in: chat, clientID: "c1")
        try writer.send("hey", from: bob, in: chat)
        for user in everyone { try expectKept(user, in: writer) }
        try writer.read(chat, by: bob)
        for user in everyone { try expectKept(user, in: writer) }

        // A second chat comes first in both lists; a page overflows into earlier.
        let other = try writer.open(carol, with: "alice")
        for index in 0..<60 { try writer.send("m\(index)", from: index % 3 == 0 ? alice : carol, in: other) }
        for user in everyone { try expectKept(user, in: writer) }
        try writer.read(other, by: alice)
        try writer.apply(.message(.send(chat: chat.id, sender: bob.id, text: "one", clientID: nil)),
                         .message(.read(chat: other.id, reader: carol.id)),
                         .message(.send(chat: chat.id, sender: alice.id, text: "two", clientID: nil)))
        for user in everyone { try expectKept(user, in: writer) }
        #expect(writer.directory.summaries(of: alice.id)?.map(\.chatID) == [chat.id, other.id])
    }

    /// Random changes, some in one batch (so that chats tie on their time):
    /// after each, every kept list, read whole and by pages, its unread total
    /// and each latest screen are what the database answers, on both engines;
    /// and so are the views built from them, byte for byte, while the clock
    /// now and then passes a midnight (a row written yesterday reads otherwise
    /// today, and must not be taken again as it was written).
    @Test(arguments: Backend.allCases)
    func keptListsFollowRandomChangesInPlace(_ backend: Backend) throws {
        let writer = try Writer(location: try TestDatabase.fresh(backend), directory: ChatDirectory())
        defer { writer.database.close() }
        var random = SystemRandomNumberGenerator()
        let now = Mutex(0)
        // One builder through all the steps, so that rows written at one step are offered at the next.
        let kept = ViewModelBuilder(database: writer.database, cache: ViewCache(budgetBytes: 0), directory: writer.directory,
                                    presence: .nobody, dates: DateText(zone: .utc), now: { now.withLock { $0 } })
        var later = 0
        let users = try (0..<6).map { try writer.signUp("u\($0)") }
        var chats: [Chat] = []
        for step in 0..<150 {
            let user = users.randomElement(using: &random)!
            let contact = users.randomElement(using: &random)!
            let theirs = chats.filter { $0.includes(user.id) }
            do {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<2 where contact.id != user.id && !theirs.contains(where: { $0.includes(contact.id) }):
                    chats.append(try writer.open(user, with: contact.name))
                case 0..<5 where !theirs.isEmpty:
                    try writer.send("m\(step)", from: user, in: theirs.randomElement(using: &random)!)
                case 5..<7 where theirs.count >= 2:
                    let two = theirs.shuffled(using: &random).prefix(2)
                    try writer.apply(contentsOf: two.map { .message(.send(chat: $0.id, sender: user.id, text: "tie \(step)", clientID: nil)) })
                case 7..<9 where !theirs.isEmpty:
                    try writer.read(theirs.randomElement(using: &random)!, by: user)
                case 9 where !theirs.isEmpty && Bool.random(using: &random):
                    try writer.apply(.chat(.block(user: user.id, chat: theirs.randomElement(using: &random)!.id, blocked: Bool.random(using: &random))))
                case 9:
                    try writer.apply(.account(.setPrivacy(user: user.id, showsPresence: Bool.random(using: &random))))
                default:
                    continue
                }
            } catch StoreError.blocked {
                // A blocked chat takes no message: nothing changed.
                continue
            }
            for user in users {
                try expectKept(user, in: writer)
                let all = try writer.store.chatSummaries(of: user.id)
                for page in [ChatListPage(offset: 0, limit: 2), ChatListPage(offset: 1, limit: 3), ChatListPage(offset: 7, limit: 2)] {
                    let kept = try #require(writer.directory.summaries(of: user.id, page: page))
                    let stored = ChatSummaryPage(page: page, of: all)
                    #expect(kept.summaries == stored.summaries && kept.total == stored.total && kept.unreadTotal == stored.unreadTotal)
                }
            }
            if Int.random(in: 0..<8, using: &random) == 0 { later += 6 * 3_600_000 }
            now.withLock { $0 = writer.clock + later }
            try expectViews(of: users, chats: chats, builtBy: kept, in: writer, now: writer.clock + later)
        }
    }

    /// Each user's chat list (two pages), badge and latest chat screens, built
    /// by `kept` from the kept chats, are the bytes a build from the database
    /// gives. A screen whose messages the kept chat no longer holds whole is
    /// built from the database by `kept` too, and is not compared.
    func expectViews(of users: [User], chats: [Chat], builtBy kept: ViewModelBuilder, in writer: Writer, now: Int,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fresh = ViewModelBuilder(database: writer.database, cache: ViewCache(budgetBytes: 0), directory: ChatDirectory(),
                                     presence: .nobody, dates: DateText(zone: .utc), now: { now })
        for user in users {
            let topics: [Topic] = [.chats(page: .first), .chats(page: ChatListPage(offset: 1, limit: 3)), .badge]
                + chats.filter { $0.includes(user.id) }.map { .chat(id: $0.id, page: .latest) }
            for topic in topics {
                let key = ViewKey(user: user.id, topic: topic)
                let expected = try writer.database.read { try fresh.build(key, from: $0) }.map { String(decoding: $0.representation.identity.array, as: UTF8.self) }
                guard let built = kept.buildFromKeptChats(key, withLayout: Bool.random()) else {
                    if case .chat = topic { continue }
                    Issue.record("\(key) was not built from the kept chats", sourceLocation: sourceLocation)
                    continue
                }
                #expect(String(decoding: built.representation.identity.array, as: UTF8.self) == expected, "\(key)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Views built from the kept chats are byte for byte those built from the
    /// database, also when more messages came than a kept chat holds whole
    /// (the build then falls back to the database).
    @Test func viewsFromKeptChatsAreTheBytesTheDatabaseGives() async throws {
        let directory = ChatDirectory()
        let writer = try Writer(path: folder.appendingPathComponent("views.sqlite").path, directory: directory)
        defer { writer.database.close() }
        let now: @Sendable () -> Int = { 1_795_269_909_000 }
        // A cache that keeps nothing: every view is built.
        let views = ViewModelBuilder(database: writer.database, cache: ViewCache(budgetBytes: 0), directory: directory, presence: .nobody,
                               dates: DateText(zone: .utc), now: now)
        let alice = try writer.signUp("alice")
        let bob = try writer.signUp("bob")
        let chat = try writer.open(alice, with: "bob")
        let keys = [alice, bob].flatMap { user in
            [ViewKey(user: user.id, topic: .chats(page: .first)), ViewKey(user: user.id, topic: .badge),
             ViewKey(user: user.id, topic: .chat(id: chat.id, page: .latest))]
        }
        func expectSameAsTheDatabase(fallingBack: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let fresh = ViewModelBuilder(database: writer.database, cache: ViewCache(budgetBytes: 1 << 20), directory: ChatDirectory(),
                                   presence: .nobody, dates: DateText(zone: .utc), now: now)
            for key in keys {
                let expected = try writer.database.read { try fresh.build(key, from: $0) }?.representation.identity.array
                let kept = views.buildFromKeptChats(key)
                if fallingBack, case .chat = key.topic {
                    #expect(kept == nil, sourceLocation: sourceLocation)
                } else {
                    #expect(kept?.representation.identity.array == expected, "\(key)", sourceLocation: sourceLocation)
                }
                let answered = try await views.representation(for: key)?.identity.array
                #expect(answered == expected, "\(key)", sourceLocation: sourceLocation)
            }
        }
        try writer.send("hi bob", from: alice, in: chat)
        try await expectSameAsTheDatabase()
        try writer.send("hey", from: bob, in: chat)
        try writer.send("how are you?", from: bob, in: chat)
        try await expectSameAsTheDatabase()
        try writer.read(chat, by: alice)
        try await expectSameAsTheDatabase()
        for index in 0...KeptChat.recentCount { try writer.send("burst \(index)", from: alice, in: chat) }
        try await expectSameAsTheDatabase(fallingBack: true)
        try writer.send("after", from: bob, in: chat)
        try await expectSameAsTheDatabase()
    }

    /// The chatbot talks with everyone: a user with more chats than a kept
    /// one may have is let go with the chats no one else keeps, and the views
    /// of their contacts are still kept.
    /// A kept user's chats and contacts, and the last seen of a contact,
    /// are what the database holds.
    @Test func aKeptUsersContactsAndLastSeenAreTheDatabases() throws {
        let directory = ChatDirectory()
        let writer = try Writer(path: folder.appendingPathComponent("contacts.sqlite").path, directory: directory)
        defer { writer.database.close() }
        let alice = try writer.signUp("alice")
        let bob = try writer.signUp("bob")
        let carol = try writer.signUp("carol")
        let withBob = try writer.open(alice, with: "bob")
        let withCarol = try writer.open(alice, with: "carol")
        let kept = try #require(directory.contacts(of: alice.id))
        #expect(Set(kept.map { "\($0.chat):\($0.contact)" }) == Set(try writer.store.chatContacts(of: alice.id).map { "\($0.chat):\($0.contact)" }))
        #expect(Set(kept.map(\.contact)) == [bob.id, carol.id] && Set(kept.map(\.chat)) == [withBob.id, withCarol.id])
        #expect(directory.contacts(of: 999) == nil)

        try writer.apply(.account(.lastSeen(user: bob.id, at: 7_000)))
        #expect(directory.screen(of: withBob.id, for: alice.id)?.contact.lastSeenAt == 7_000)
        #expect(try writer.store.user(id: bob.id)?.lastSeenAt == 7_000)
        try writer.apply(.account(.lastSeen(user: bob.id, at: 6_000)))
        #expect(try writer.store.user(id: bob.id)?.lastSeenAt == 7_000, "an earlier time does not replace a later one")
    }

    @Test func aUserWithVeryManyChatsIsNotKeptButTheirContactsAre() throws {
        let directory = ChatDirectory(chatBudget: 8, maxChatsPerUser: 20)
        let writer = try Writer(path: folder.appendingPathComponent("many.sqlite").path, directory: directory)
        defer { writer.database.close() }
        let hub = try writer.signUp("hub")
        var contacts: [(User, Chat)] = []
        for index in 0...directory.maxChatsPerUser {
            let user = try writer.signUp("user\(index)")
            contacts.append((user, try writer.open(user, with: "hub")))
            #expect((directory.summaries(of: hub.id) != nil) == (contacts.count <= directory.maxChatsPerUser))
        }
        #expect(directory.keptChatCount <= 8)
        let (last, chat) = contacts[contacts.count - 1]
        try writer.send("hello hub", from: last, in: chat)
        try writer.send("hello \(last.name)", from: hub, in: chat)
        #expect(directory.summaries(of: hub.id) == nil)
        #expect(directory.unreadTotal(of: hub.id) == nil)
        try expectKept(last, in: writer)
    }

    /// A change to a chat that leaves a user's row as it was (here the user's
    /// own last seen: the row shows the contact's) gives the row the chat's
    /// new state: the build after next finds it unchanged and makes no summary.
    @Test func aRowLeftAsItWasIsUnchangedAtTheNextBuild() throws {
        let writer = try Writer(path: folder.appendingPathComponent("stamped.sqlite").path, directory: ChatDirectory())
        defer { writer.database.close() }
        let alice = try writer.signUp("alice")
        let bob = try writer.signUp("bob")
        try writer.send("hi", from: bob, in: try writer.open(alice, with: bob.name))
        let rows = ChatListRows()
        let builder = ChatListViewModelBuilder(dates: DateText(zone: .utc), presence: .nobody)
        func build() throws -> ChatSummaryPage {
            let written = rows.rows(of: ChatListRows.Page(viewer: alice.id, offset: 0))
            let page = try #require(writer.directory.summaries(of: alice.id, page: .first, written: written))
            _ = builder.build(page, page: .first, now: writer.clock, viewer: alice.id, written: written, rows: rows)
            return page
        }
        func unchanged(_ page: ChatSummaryPage) -> Bool {
            page.items.allSatisfy { if case .unchanged = $0 { true } else { false } }
        }
        _ = try build()
        #expect(unchanged(try build()))
        try writer.apply(.account(.lastSeen(user: alice.id, at: writer.clock)))
        #expect(!unchanged(try build()), "the chat changed: its summary is made and compared")
        #expect(unchanged(try build()))
    }

    /// Users not touched for two turns are let go with their chats, and are
    /// read again whole when they come back.
    @Test func memoryIsBoundedAndForgottenUsersAreReadAgain() throws {
        let directory = ChatDirectory(chatBudget: 8)
        let writer = try Writer(path: folder.appendingPathComponent("bounded.sqlite").path, directory: directory)
        defer { writer.database.close() }
        var pairs: [(User, User, Chat)] = []
        for index in 0..<12 {
            let first = try writer.signUp("first\(index)")
            let second = try writer.signUp("second\(index)")
            let chat = try writer.open(first, with: second.name)
            try writer.send("hello \(index)", from: first, in: chat)
            pairs.append((first, second, chat))
            #expect(directory.keptChatCount <= 8)
            #expect(directory.figures.bytes <= 8 * ChatDirectory.bytesPerChat)
        }
        let letGo = directory.figures
        #expect(letGo.chats == directory.keptChatCount && letGo.users > 0 && letGo.usersLetGo >= 8 && letGo.usersReadAgain == 0, "\(letGo)")
        let (first, second, chat) = pairs[0]
        #expect(directory.summaries(of: first.id) == nil)
        #expect(directory.screen(of: chat.id, for: first.id) == nil)
        #expect(directory.unreadTotal(of: second.id) == nil)
        try writer.send("back", from: second, in: chat)
        try expectKept(first, in: writer)
        try expectKept(second, in: writer)
        #expect(directory.figures.usersReadAgain == 2)
    }

    /// A read that fails while the feed is followed comes back to the caller,
    /// which says it; the users it was for are not kept, and are read from the
    /// store until a later change keeps them.
    @Test func aReadThatFailsIsToldAndLeavesItsUsersOut() throws {
        let directory = ChatDirectory()
        let writer = try Writer(path: folder.appendingPathComponent("failing.sqlite").path, directory: ChatDirectory())
        defer { writer.database.close() }
        let alice = try writer.signUp("alice")
        let bob = try writer.signUp("bob")
        let chat = try writer.open(alice, with: "bob")
        struct Unreadable: Error {}
        let failing = FeedSnapshot(begunBy: { throw Unreadable() })
        let failure = directory.committed([.chatOpened(chat)], at: writer.clock, snapshot: failing)
        #expect(failure is Unreadable)
        #expect(directory.summaries(of: alice.id) == nil && directory.summaries(of: bob.id) == nil)
        let read = directory.committed([.chatOpened(chat)], at: writer.clock, snapshot: FeedSnapshot(writer.store, showing: writer.clock))
        #expect(read == nil)
        #expect(directory.summaries(of: alice.id)?.count == 1)
    }

    /// A build that fails is a failure, never "not yours" or "deleted": here
    /// the database file is gone when a new reader must open it.
    @Test func aFailedBuildIsNotAnAbsence() async throws {
        let path = folder.appendingPathComponent("gone.sqlite").path
        let writer = try Writer(path: path, directory: ChatDirectory())
        let alice = try writer.signUp("alice")
        try writer.apply(.order(.place(user: alice.id, name: "Tea", currency: "USD", items: [OrderItem(title: "Tea", quantity: 1, priceCents: 1)])))
        let views = ViewModelBuilder(database: writer.database, cache: ViewCache(budgetBytes: 0), directory: ChatDirectory(), presence: .nobody,
                               dates: DateText(zone: .utc), now: { 1_000_000 })
        let keys = [ViewKey(user: alice.id, topic: .order(id: 1)), ViewKey(user: alice.id, topic: .order(id: 99))]
        let before = await views.representations(for: keys)
        guard case .built = before[0], case .notVisible = before[1] else {
            Issue.record("expected order 1 built and order 99 not visible, got \(before)")
            return
        }
        writer.database.close()
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        for build in await views.representations(for: keys) {
            guard case .failed = build else {
                Issue.record("a build without its database must fail, got \(build)")
                continue
            }
        }
    }
}

private extension Presence {
    /// Presence with nobody online or typing.
    static var nobody: Presence { Presence(PresenceTracker(server: "test")) }
}
