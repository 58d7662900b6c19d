import Foundation
@testable import TailorDomain
import TailorStore
@testable import TailorViews
import Testing

/// Builders are pure: model state and a fixed clock in, view models out.
@Suite struct BuilderTests {
    /// 2026-11-21 14:05:09 UTC, a Saturday.
    static let now = 1_795_269_909_000
    static let hour = 3_600_000
    static let day = 24 * hour
    let utc = DateText(zone: .utc)

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
        let tokyo = DateText(zone: TimeZoneRules.named("Asia/Tokyo")!)
        #expect(tokyo.text(lateEvening, now: afterMidnight) == "08:30")
        // In New York (UTC-5) both are still the 21st.
        let newYork = DateText(zone: TimeZoneRules.named("America/New_York")!)
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
                        lastMessage: Message(id: 40, chatID: 7, senderID: 2, text: "See you!", clientID: nil, sentAt: Self.now, isRead: false),
                        unreadCount: 2),
            ChatSummary(chatID: 8, contact: User(id: 3, name: "carol"), createdAt: Self.now - 2 * Self.day, lastMessage: nil, unreadCount: 0),
        ]
        let model = ChatListViewModelBuilder(dates: utc, presence: .nobody).build(ChatSummaryPage(page: .first, of: summaries), page: .first, now: Self.now)
        #expect(model.unreadTotal == 2)
        #expect(model.items[0].lastMessageDate == "14:05")
        #expect(model.items[0].open == ActionViewModel.get("/api/chats/7"))
        #expect(model.next == nil)
        let json = String(decoding: ViewModelEncoding.json(model), as: UTF8.self)
        #expect(json.contains(#""lastMessageAt":null"#))
        #expect(json.contains(#""message":"""#))
        #expect(json.contains(#""next":null"#))

        // A page of one: the total unread still counts every chat.
        let first = ChatListViewModelBuilder(dates: utc, presence: .nobody).build(ChatSummaryPage(page: ChatListPage(offset: 0, limit: 1), of: summaries), page: ChatListPage(offset: 0, limit: 1),
                                                                                  now: Self.now)
        #expect(first.items.map(\.id) == ["7"])
        #expect(first.next == ActionViewModel.get("/api/chats?offset=1&limit=1"))
        let second = ChatListViewModelBuilder(dates: utc, presence: .nobody).build(ChatSummaryPage(page: ChatListPage(offset: 1, limit: 1), of: summaries), page: ChatListPage(offset: 1, limit: 1),
                                                                                   now: Self.now)
        #expect(second.items.map(\.id) == ["8"])
        #expect(second.unreadTotal == 2)
        #expect(second.next == nil)
        let past = ChatListViewModelBuilder(dates: utc, presence: .nobody).build(ChatSummaryPage(page: ChatListPage(offset: 5, limit: 1), of: summaries), page: ChatListPage(offset: 5, limit: 1),
                                                                                 now: Self.now)
        #expect(past.items.isEmpty && past.next == nil)
    }

    /// A list written from the rows kept from the last build is byte for byte
    /// the list built whole: after a message moves a chat to the top, after a
    /// read, a page of its own, and a day later, when every date reads anew.
    @Test func aListWrittenFromKeptRowsIsTheListBuiltWhole() throws {
        let builder = ChatListViewModelBuilder(dates: utc, presence: .nobody)
        let rows = ChatListRows()
        var summaries = (0..<30).map { index in
            ChatSummary(chatID: index, contact: User(id: 100 + index, name: "c\(index)"), createdAt: Self.now - Self.day,
                        lastMessage: Message(id: index, chatID: index, senderID: 100 + index, text: "m\(index)", clientID: nil,
                                             sentAt: Self.now - Self.day + index * Self.hour, isRead: false),
                        unreadCount: index % 3)
        }.reversed().map { $0 }
        func expectSame(_ page: ChatListPage, now: Int, sourceLocation: SourceLocation = #_sourceLocation) {
            let slice = ChatSummaryPage(page: page, of: summaries)
            let whole = ViewModelEncoding.json(builder.build(slice, page: page, now: now))
            let written = rows.rows(of: ChatListRows.Page(viewer: 1, offset: page.offset))
            let fromRows = ViewModelEncoding.json(builder.build(slice, page: page, now: now, viewer: 1, written: written, rows: rows))
            #expect(fromRows == whole, sourceLocation: sourceLocation)
        }
        expectSame(.first, now: Self.now)
        expectSame(.first, now: Self.now)
        // A new message in the last chat: it moves to the top.
        let moved = summaries.removeLast()
        summaries.insert(ChatSummary(chatID: moved.chatID, contact: moved.contact, createdAt: moved.createdAt,
                                     lastMessage: Message(id: 99, chatID: moved.chatID, senderID: 1, text: "new", clientID: nil,
                                                          sentAt: Self.now, isRead: false),
                                     unreadCount: 0), at: 0)
        expectSame(.first, now: Self.now)
        // Read: one count changes.
        let read = summaries[5]
        summaries[5] = ChatSummary(chatID: read.chatID, contact: read.contact, createdAt: read.createdAt, lastMessage: read.lastMessage,
                                   unreadCount: 0)
        expectSame(.first, now: Self.now)
        expectSame(ChatListPage(offset: 10, limit: 5), now: Self.now)
        expectSame(.first, now: Self.now + Self.day)
    }

    @Test func aChatShowsMineAndTheirsWithStatesAndEarlierPage() throws {
        let alice = User(id: 1, name: "alice")
        let bob = User(id: 2, name: "bob")
        let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 0)
        let messages = [
            Message(id: 10, chatID: 7, senderID: 1, text: "hi", clientID: nil, sentAt: Self.now, isRead: true),
            Message(id: 11, chatID: 7, senderID: 2, text: "hey", clientID: nil, sentAt: Self.now, isRead: false),
        ]
        let model = ChatViewModelBuilder(dates: utc).build(chat: chat, viewer: alice, contact: bob, contactStatus: .online, blocked: false, page: Self.outline(of: messages, hasEarlier: true),
                                                           request: .latest, unread: 1, load: Self.loader(of: messages))
        let shown = try fields(of: model)
        #expect(model.title == "bob")
        #expect(shown.map { $0["sender"] } == ["me", "other"])
        #expect(shown.map { $0["state"] } == ["read", "sent"])
        #expect(shown.map { $0["senderName"] } == ["alice", "bob"])
        #expect(model.earlier == .get("/api/chats/7?before=10"))
        #expect(model.actions.send == .post("/api/chats/7/messages"))
    }

    /// Kept message lists never show an old state: a message read since shows
    /// as read without being loaded again, the other user's screen is written
    /// anew, a new message is added.
    @Test func keptMessageListsFollowReadStateReaderAndNewMessages() throws {
        let alice = User(id: 1, name: "alice")
        let bob = User(id: 2, name: "bob")
        let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 0)
        let builder = ChatViewModelBuilder(dates: utc, pages: MessagePages())
        var loaded: [Int] = []
        func screen(of viewer: User, isRead: Bool, also more: [Message] = []) throws -> [[String: String]] {
            let messages = [Message(id: 10, chatID: 7, senderID: 1, text: "hi", clientID: nil, sentAt: Self.now, isRead: isRead)] + more
            let model = builder.build(chat: chat, viewer: viewer, contact: viewer.id == 1 ? bob : alice, contactStatus: .online, blocked: false, page: Self.outline(of: messages, hasEarlier: false),
                                      request: .latest, unread: 0) { id in
                loaded.append(id)
                return Self.loader(of: messages)(id)
            }
            return try fields(of: model)
        }
        #expect(try screen(of: alice, isRead: false)[0]["state"] == "sent")
        #expect(try screen(of: alice, isRead: true)[0]["state"] == "read")
        #expect(try screen(of: bob, isRead: true)[0]["sender"] == "other")
        #expect(try screen(of: bob, isRead: true)[0]["senderName"] == "alice")
        let reply = Message(id: 12, chatID: 7, senderID: 2, text: "hey", clientID: nil, sentAt: Self.now, isRead: false)
        let withReply = try screen(of: alice, isRead: false, also: [reply])
        #expect(withReply.map { $0["id"] } == ["10", "12"])
        #expect(withReply.map { $0["state"] } == ["sent", "sent"])
        #expect(withReply.map { $0["text"] } == ["hi", "hey"])
        // Only what a screen had not written yet was read whole: a message's
        // state is written from its read state as the list is encoded.
        #expect(loaded == [10, 10, 12])
    }

    /// A kept message read since encodes byte for byte as writing it read
    /// gives, even when its text speaks of states: its state comes from the
    /// read cursors as the list is encoded, not from its kept bytes.
    @Test func aMessageReadSinceItWasKeptIsTheSameAsOneWrittenRead() {
        let alice = User(id: 1, name: "alice")
        let bob = User(id: 2, name: #"bob "state":"sent""#)
        let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 0)
        func messages(isRead: Bool) -> [Message] {
            [Message(id: 10, chatID: 7, senderID: 2, text: #"{"state":"sent"}"#, clientID: nil, sentAt: Self.now, isRead: isRead),
             Message(id: 11, chatID: 7, senderID: 2, text: "sent", clientID: nil, sentAt: Self.now + 1, isRead: isRead)]
        }
        func screen(_ builder: ChatViewModelBuilder, isRead: Bool) -> ChatViewModel {
            let messages = messages(isRead: isRead)
            return builder.build(chat: chat, viewer: alice, contact: bob, contactStatus: .online, blocked: false, page: Self.outline(of: messages, hasEarlier: false),
                                 request: .latest, unread: 0, load: Self.loader(of: messages))
        }
        let kept = ChatViewModelBuilder(dates: utc, pages: MessagePages())
        _ = screen(kept, isRead: false)
        let rewritten = screen(kept, isRead: true)
        let written = screen(ChatViewModelBuilder(dates: utc, pages: MessagePages()), isRead: true)
        #expect(ViewModelEncoding.json(rewritten) == ViewModelEncoding.json(written))
        #expect(rewritten.messages.entries.map(\.read) == [true, true])
    }

    static func outline(of messages: [Message], hasEarlier: Bool) -> MessagePageOutline {
        MessagePageOutline(states: messages.map(MessageState.init), hasEarlier: hasEarlier)
    }

    static func loader(of messages: [Message]) -> (Int) -> Message? {
        { id in messages.first { $0.id == id } }
    }

    /// The text fields of each message of a chat screen.
    private func fields(of model: ChatViewModel) throws -> [[String: String]] {
        let screen = try JSONSerialization.jsonObject(with: Data(ViewModelEncoding.json(model))) as? [String: Any] ?? [:]
        return (screen["messages"] as? [[String: Any]] ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    @Test func theSameViewModelEncodesToTheSameBytes() {
        let model = BadgeViewModel(unread: 3)
        #expect(ViewModelEncoding.json(model) == ViewModelEncoding.json(model))
        #expect(String(decoding: ViewModelEncoding.json(model), as: UTF8.self) == #"{"unread":3}"#)
    }
}

/// The tz database read by hand, checked against known offsets.
@Suite struct TimeZoneRulesTests {
    static func utc(_ year: Int64, _ month: Int, _ day: Int, _ hour: Int64) -> Int64 {
        CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3600
    }

    @Test func offsetsFollowDaylightTimeInBerlinAndNewYork() throws {
        let berlin = try #require(TimeZoneRules.named("Europe/Berlin"))
        #expect(berlin.offset(atUTC: Self.utc(2026, 1, 15, 12)) == 3600)
        #expect(berlin.offset(atUTC: Self.utc(2026, 7, 15, 12)) == 7200)
        // Summer time starts on the last Sunday of March 2026 (the 29th) at 01:00 UTC.
        #expect(berlin.offset(atUTC: Self.utc(2026, 3, 29, 0)) == 3600)
        #expect(berlin.offset(atUTC: Self.utc(2026, 3, 29, 1)) == 7200)
        let newYork = try #require(TimeZoneRules.named("America/New_York"))
        #expect(newYork.offset(atUTC: Self.utc(2026, 1, 15, 12)) == -5 * 3600)
        #expect(newYork.offset(atUTC: Self.utc(2026, 7, 15, 12)) == -4 * 3600)
        #expect(try #require(TimeZoneRules.named("Asia/Tokyo")).offset(atUTC: Self.utc(2026, 7, 15, 12)) == 9 * 3600)
    }

    @Test func theFootersRuleCoversYearsPastTheTable() throws {
        let rule = try #require(PosixTimeZoneRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        // The last Sunday of March 2090 is the 26th.
        #expect(rule.offset(atUTC: Self.utc(2090, 3, 26, 0)) == 3600)
        #expect(rule.offset(atUTC: Self.utc(2090, 3, 26, 1)) == 7200)
        #expect(rule.offset(atUTC: Self.utc(2090, 12, 1, 0)) == 3600)
        #expect(try #require(PosixTimeZoneRule("<+0530>-5:30")).offset(atUTC: 0) == 19_800)
        let south = try #require(PosixTimeZoneRule("AEST-10AEDT,M10.1.0,M4.1.0/3"))
        #expect(south.offset(atUTC: Self.utc(2090, 1, 15, 0)) == 11 * 3600)
        #expect(south.offset(atUTC: Self.utc(2090, 7, 15, 0)) == 10 * 3600)
    }

    @Test func unknownOrUnsafeNamesAreRefused() {
        #expect(TimeZoneRules.named("Mars/Olympus") == nil)
        #expect(TimeZoneRules.named("../../etc/passwd") == nil)
        #expect(TimeZoneRules.named("/etc/localtime") == nil)
        #expect(TimeZoneRules.named("UTC") != nil)
    }

    @Test func civilDatesRoundTrip() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let date = CivilDate(days: days)
            #expect(CivilDate.days(year: date.year, month: date.month, day: date.day) == days)
        }
        #expect(CivilDate.weekday(days: 0) == 4)
        #expect(CivilDate(days: 20_413) == CivilDate(days: CivilDate.days(year: 2025, month: 11, day: 21)))
    }
}

extension Presence {
    /// Presence with nobody online or typing.
    static var nobody: Presence { Presence(PresenceTracker(server: "test")) }
}
