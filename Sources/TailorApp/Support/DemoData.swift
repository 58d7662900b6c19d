import TailorStore

/// `--demo`: on a database without them, the users alice and bob, a few chats
/// with messages, and 100 orders.
enum DemoData {
    struct Tokens {
        let alice: String
        let bob: String
    }

    /// Adds the demo through the event router; nil when alice exists already.
    static func seed(events: EventRouter, database: Database) async throws -> Tokens? {
        guard try database.read({ try $0.user(named: "alice") }) == nil else { return nil }
        let aliceToken = Authenticator.newToken()
        let bobToken = Authenticator.newToken()
        let alice = try await events.signUp(name: "alice", tokenHash: Authenticator.hash(aliceToken).bytes)
        let bob = try await events.signUp(name: "bob", tokenHash: Authenticator.hash(bobToken).bytes)

        let chat = try await events.openChat(user: alice.id, contact: "bob").chat
        let lines: [(Int, String)] = [(alice.id, "Hi Bob! Did the parcel arrive?"), (bob.id, "Yes, this morning."),
                                      (alice.id, "Great. Dinner on Friday?"), (bob.id, "See you!")]
        for (sender, text) in lines {
            _ = try await events.send(chat: chat.id, sender: sender, text: text, clientID: nil)
        }
        try await events.markRead(chat: chat.id, reader: alice.id)
        _ = try await events.openChat(user: alice.id, contact: User.botName)

        let names = ["Groceries", "Books", "Garden", "Office", "Kitchen", "Toys", "Sports", "Music", "Tools", "Gifts"]
        let things = ["Milk", "Bread", "Coffee", "Notebook", "Pencils", "Seeds", "Lamp", "Ball", "Strings", "Hammer", "Tea", "Apples"]
        let currencies = ["USD", "USD", "EUR", "GBP", "JPY"]
        for index in 0..<100 {
            let items = (0..<(1 + index % 4)).map { line in
                OrderItem(title: things[(index + line * 5) % things.count], quantity: 1 + (index + line) % 3,
                          priceCents: 99 + ((index * 37 + line * 211) % 4900))
            }
            let order = try await events.placeOrder(user: alice.id, name: names[index % names.count],
                                                    currency: currencies[index % currencies.count], items: items)
            // A mix of states, so every kind of action shows.
            let path: [OrderStatus] = switch index % 6 {
            case 1: [.paid]
            case 2: [.paid, .shipped]
            case 3: [.paid, .shipped, .delivered]
            case 4: [.cancelled]
            default: []
            }
            for status in path {
                try await events.changeOrder(user: alice.id, order: order.id, to: status)
            }
        }
        return Tokens(alice: aliceToken, bob: bobToken)
    }
}
