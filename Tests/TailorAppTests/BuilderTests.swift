import Foundation
import Testing
import TailorStore
@testable import TailorApp

/// Builders are pure: model state and a fixed clock in, view models out.
@Suite struct BuilderTests {
    /// 2026-11-21 14:05:09 UTC, a Saturday.
    static let now = 1_795_269_909_000
    static let hour = 3_600_000
    static let day = 24 * hour
    let utc = DateText(timeZone: TimeZone(identifier: "UTC")!)

    @Test func dateTextsFollowTheDayRules() {
        #expect(DateText.iso(Self.now) == "2026-11-21T14:05:09Z")
        #expect(utc.text(Self.now, now: Self.now) == "14:05")
        #expect(utc.text(Self.now - 14 * Self.hour, now: Self.now) == "00:05")
        #expect(utc.text(Self.now - 15 * Self.hour, now: Self.now) == "Yesterday")
        #expect(utc.text(Self.now - 2 * Self.day, now: Self.now) == "Thursday")
        #expect(utc.text(Self.now - 6 * Self.day, now: Self.now) == "Sunday")
        #expect(utc.text(Self.now - 7 * Self.day, now: Self.now) == "14 Nov 2026")
        #expect(utc.text(Self.now - 18 * Self.day, now: Self.now) == "3 Nov 2026")
    }

    @Test func dateTextsChangeAtMidnightOfTheServersTimeZone() {
        // 23:30 UTC on the 21st, seen 40 minutes later (00:10 on the 22nd): yesterday in UTC.
        let lateEvening = Self.now + 9 * Self.hour + 25 * 60_000
        let afterMidnight = lateEvening + 40 * 60_000
        #expect(utc.text(lateEvening, now: lateEvening + 60_000) == "23:30")
        #expect(utc.text(lateEvening, now: afterMidnight) == "Yesterday")
        // In Tokyo (UTC+9) both moments are on the 22nd: the same day.
        let tokyo = DateText(timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        #expect(tokyo.text(lateEvening, now: afterMidnight) == "08:30")
        // In New York (UTC-5) both are still the 21st.
        let newYork = DateText(timeZone: TimeZone(identifier: "America/New_York")!)
        #expect(newYork.text(lateEvening, now: afterMidnight) == "18:30")
        #expect(utc.millisecondsUntilMidnight(now: lateEvening) == 29 * 60_000 + 51_000)
    }

    @Test func moneyIsFormattedPerCurrency() {
        #expect(Currency.usd.format(258) == "$2.58")
        #expect(Currency.usd.format(123_450) == "$1,234.50")
        #expect(Currency.eur.format(5) == "€0.05")
        #expect(Currency.gbp.format(100_000_000) == "£1,000,000.00")
        #expect(Currency.jpy.format(258) == "¥258")
        #expect(Currency.jpy.format(1_234_567) == "¥1,234,567")
    }

    @Test func anOrderShowsItsNameIdMoneyAndAllowedActions() {
        let order = Order(id: 12, userID: 1, name: "Groceries", currency: "USD", status: .placed, totalCents: 258, itemCount: 2,
                          createdAt: Self.now, items: [OrderItem(title: "Milk", quantity: 2, priceCents: 129)])
        let model = OrderViewModelBuilder(dates: utc).build(order, now: Self.now, withLines: true)
        #expect(model.name == "Groceries #12")
        #expect(model.total == "$2.58")
        #expect(model.statusLabel == "Placed")
        #expect(model.date == "14:05")
        #expect(model.actions.map(\.name) == ["pay", "cancel"])
        #expect(model.actions[0].body == ["status": "paid"])
        #expect(model.lines == [OrderLineViewModel(title: "Milk", quantity: 2, unitPrice: "$1.29", lineTotal: "$2.58")])
        let json = String(decoding: ViewModelEncoding.json(model), as: UTF8.self)
        #expect(json.contains(#""href":"/api/orders/12""#))
        let delivered = Order(id: 1, userID: 1, name: "X", currency: "JPY", status: .delivered, totalCents: 5, itemCount: 1, createdAt: Self.now, items: [])
        #expect(OrderViewModelBuilder(dates: utc).build(delivered, now: Self.now, withLines: false).actions.isEmpty)
    }

    @Test func compactOrdersHoldOnlyTheirShortFields() throws {
        let order = Order(id: 3, userID: 1, name: "Books", currency: "EUR", status: .paid, totalCents: 1999, itemCount: 1, createdAt: Self.now, items: [])
        var query = OrdersQuery.standard
        query.layout = .compact
        let model = OrderViewModelBuilder(dates: utc).buildList([order], query: query, now: Self.now)
        let json = try JSONSerialization.jsonObject(with: Data(ViewModelEncoding.json(model))) as! [String: Any]
        let item = (json["items"] as! [[String: Any]])[0]
        #expect(Set(item.keys) == ["id", "name", "statusLabel", "total", "open"])
        #expect(json["count"] as? Int == 1)
        #expect(json["layout"] as? String == "compact")
    }

    @Test func theChatListShowsLastMessagesUnreadCountsAndNullsWhenEmpty() throws {
        let bob = User(id: 2, name: "bob")
        let summaries = [
            ChatSummary(chatID: 7, contact: bob, createdAt: Self.now - Self.day,
                        lastMessage: Message(id: 40, chatID: 7, senderID: 2, text: "See you!", clientID: nil, sentAt: Self.now, readAt: nil),
                        unreadCount: 2),
            ChatSummary(chatID: 8, contact: User(id: 3, name: "carol"), createdAt: Self.now - 2 * Self.day, lastMessage: nil, unreadCount: 0),
        ]
        let model = ChatListViewModelBuilder(dates: utc).build(summaries, now: Self.now)
        #expect(model.unreadTotal == 2)
        #expect(model.items[0].lastMessageDate == "14:05")
        #expect(model.items[0].open == .get("/api/chats/7"))
        let json = String(decoding: ViewModelEncoding.json(model), as: UTF8.self)
        #expect(json.contains(#""lastMessageAt":null"#))
        #expect(json.contains(#""message":"""#))
    }

    @Test func aChatShowsMineAndTheirsWithStatesAndEarlierPage() {
        let alice = User(id: 1, name: "alice")
        let bob = User(id: 2, name: "bob")
        let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 0)
        let page = MessagePage(messages: [
            Message(id: 10, chatID: 7, senderID: 1, text: "hi", clientID: nil, sentAt: Self.now, readAt: Self.now),
            Message(id: 11, chatID: 7, senderID: 2, text: "hey", clientID: nil, sentAt: Self.now, readAt: nil),
        ], hasEarlier: true)
        let model = ChatViewModelBuilder(dates: utc).build(chat: chat, viewer: alice, contact: bob, page: page, request: .latest, unread: 1)
        #expect(model.title == "bob")
        #expect(model.messages.map(\.sender) == ["me", "other"])
        #expect(model.messages.map(\.state) == ["read", "sent"])
        #expect(model.messages.map(\.senderName) == ["alice", "bob"])
        #expect(model.earlier == .get("/api/chats/7?before=10"))
        #expect(model.actions.send == .post("/api/chats/7/messages"))
    }

    @Test func theSameViewModelEncodesToTheSameBytes() {
        let model = BadgeViewModel(unread: 3)
        #expect(ViewModelEncoding.json(model) == ViewModelEncoding.json(model))
        #expect(String(decoding: ViewModelEncoding.json(model), as: UTF8.self) == #"{"unread":3}"#)
    }

    @Test func theBotAnswersShowThatItUnderstood() {
        #expect(Chatbot.answer(to: "hello there").hasPrefix("Hello!"))
        #expect(Chatbot.answer(to: "pizza").contains("pizza"))
    }
}
