import Foundation
@testable import TailorStore
import TailorTestSupport
import Testing

/// The push outbox's claims on both engines: fair between users and
/// subscriptions, bounded per subscription, and a subscription that keeps
/// failing removed after its time.
@Suite struct PushOutboxTests {
    private static let keys = (p256dh: [UInt8](repeating: 4, count: 65), auth: [UInt8](repeating: 1, count: 16))

    private static func subscribe(_ user: Int, _ name: String, in store: Store) throws -> PushSubscription {
        try store.subscribe(user: user, session: nil, endpoint: "https://push.example/\(name)", p256dh: keys.p256dh, auth: keys.auth,
                            limit: 10, at: 1)
    }

    /// `count` messages from `sender` in `chat`, each with a push queued to `recipient`, due at 1.
    private static func send(_ count: Int, in chat: Chat, from sender: Int, to recipient: Int, store: Store) throws {
        for index in 0..<count {
            _ = try store.insertMessage(chat: chat.id, sender: sender, text: "m\(index)", clientID: nil, recipient: recipient, pushDue: 1,
                                        at: 1).value()
        }
    }

    @Test(arguments: Backend.allCases)
    func aNewerPushOfAChatReplacesThePendingOneAndTheOldestGoPastTheBound(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, chat) = try StoreRulesTests.chatOfTwo(in: store)
        let subscription = try Self.subscribe(bob.id, "bob", in: store)
        try Self.send(5, in: chat, from: alice.id, to: bob.id, store: store)
        var others: [Chat] = []
        for index in 0..<3 {
            let contact = try store.insertUser(name: "c\(index)", at: 1)
            let other = try store.findOrCreateChat(between: contact.id, and: bob.id, at: 1).chat
            try Self.send(2, in: other, from: contact.id, to: bob.id, store: store)
            others.append(other)
        }
        // 11 pending: one per chat is left (4), then 3 past a bound of 1.
        let claim = try writer.transaction { try store.claimPushes(at: 10, lease: 1000, limit: 10, maxPending: 1) }
        #expect(claim.replaced == 7)
        #expect(claim.dropped == 3)
        #expect(claim.jobs.count == 1)
        #expect(claim.jobs.first?.subscription.id == subscription.id)
        // The newest of all: the last message of the last chat.
        #expect(claim.jobs.first?.message.chatID == others.last?.id)
        #expect(try writer.first("SELECT count(*) FROM push_outbox", binding: []) { $0.int(0) } == 1)
    }

    /// A block drops the chat's pushes not yet sent, and no other chat's.
    @Test(arguments: Backend.allCases)
    func aBlockDropsTheChatsPendingPushes(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, chat) = try StoreRulesTests.chatOfTwo(in: store)
        _ = try Self.subscribe(bob.id, "bob", in: store)
        let carol = try store.insertUser(name: "carol", at: 1)
        let other = try store.findOrCreateChat(between: carol.id, and: bob.id, at: 1).chat
        try Self.send(2, in: chat, from: alice.id, to: bob.id, store: store)
        try Self.send(1, in: other, from: carol.id, to: bob.id, store: store)
        #expect(try writer.transaction { try store.setBlocked(true, chat: chat.id, by: bob.id, at: 2) })
        let claim = try writer.transaction { try store.claimPushes(at: 10, lease: 1000, limit: 10) }
        #expect(claim.jobs.map(\.message.chatID) == [other.id])
    }

    @Test(arguments: Backend.allCases)
    func usersTakeTurnsAndABusySubscriptionIsSkipped(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let (alice, bob, _) = try StoreRulesTests.chatOfTwo(in: store)
        // Mallory has five subscriptions and a push for each in five chats, all due first.
        let mallory = try store.insertUser(name: "mallory", at: 1)
        let malloryChat = try store.findOrCreateChat(between: alice.id, and: mallory.id, at: 1).chat
        var hers: [PushSubscription] = []
        for index in 0..<5 { hers.append(try Self.subscribe(mallory.id, "mallory-\(index)", in: store)) }
        try Self.send(1, in: malloryChat, from: alice.id, to: mallory.id, store: store)
        let bobs = try Self.subscribe(bob.id, "bob", in: store)
        let bobChat = try store.findOrCreateChat(between: alice.id, and: bob.id, at: 1).chat
        try Self.send(1, in: bobChat, from: alice.id, to: bob.id, store: store)

        // Two places: one each, Bob's not behind Mallory's five.
        let first = try writer.transaction { try store.claimPushes(at: 10, lease: 1000, limit: 2) }
        #expect(Set(first.jobs.map(\.subscription.userID)) == [mallory.id, bob.id])
        // A subscription with a push in flight here is left alone.
        _ = try writer.run("UPDATE push_outbox SET due_at = 1")
        let skipping = Set(hers.prefix(4).map(\.id)).union([bobs.id])
        let second = try writer.transaction { try store.claimPushes(at: 10, lease: 1000, limit: 10, busy: skipping) }
        #expect(second.jobs.map(\.subscription.id) == [hers[4].id])
    }

    @Test(arguments: Backend.allCases)
    func aSubscriptionFailingPastItsTimeIsRemovedAndADeliveryStartsTheCountAgain(_ backend: Backend) throws {
        let (database, writer) = try Database.open(TestDatabase.fresh(backend))
        defer { database.close() }
        let store = Store(writer)
        let (_, bob, _) = try StoreRulesTests.chatOfTwo(in: store)
        let subscription = try Self.subscribe(bob.id, "bob", in: store)
        #expect(try store.recordSubscriptionFailing(id: subscription.id, at: 1_000, dropAfter: 5_000) == false)
        #expect(try store.recordSubscriptionFailing(id: subscription.id, at: 5_999, dropAfter: 5_000) == false)
        try store.recordSubscriptionWorking(id: subscription.id)
        #expect(try store.recordSubscriptionFailing(id: subscription.id, at: 7_000, dropAfter: 5_000) == false)
        #expect(try store.recordSubscriptionFailing(id: subscription.id, at: 12_000, dropAfter: 5_000) == true)
        #expect(try writer.first("SELECT count(*) FROM push_subscriptions", binding: []) { $0.int(0) } == 0)
    }
}
