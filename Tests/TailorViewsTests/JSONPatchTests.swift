import Foundation
@testable import TailorDomain
import TailorLoop
import TailorStore
import TailorTestSupport
@testable import TailorViews
import Testing

/// A patch found from two versions of a view model, applied to the first by
/// an applier of RFC 6902 written here on its own, gives the second exactly.
/// Each view model type goes through random sequences of the changes its
/// model sees.
@Suite struct JSONPatchTests {
    static let now = BuilderTests.now
    let dates = DateText(zone: .utc)

    // MARK: Chat screens

    @Test(arguments: 1...20) func chatScreensArePatchedIntoTheirNextVersion(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let alice = User(id: 1, name: "alice")
        let bob = User(id: 2, name: "bob \"the builder\" / ~")
        let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 0)
        // Built as the server builds them: messages kept between versions.
        let builder = ChatViewModelBuilder(dates: dates, pages: MessagePages())
        var messages: [Message] = []
        var nextID = 1
        func screen() -> ChatViewModel {
            let page = Array(messages.suffix(MessagePageRequest.latest.limit))
            let unread = messages.filter { $0.senderID == 2 && !$0.isRead }.count
            return builder.build(chat: chat, viewer: alice, contact: bob, contactStatus: .online, blocked: false,
                                 page: BuilderTests.outline(of: page, hasEarlier: messages.count > page.count),
                                 request: .latest, unread: unread, load: BuilderTests.loader(of: page))
        }
        var previous = screen()
        for _ in 0..<60 {
            switch random.next(below: 4) {
            case 0, 1:
                for _ in 0...random.next(below: 3) {
                    messages.append(Message(id: nextID, chatID: 7, senderID: 1 + random.next(below: 2), text: "m\(nextID) \u{1F600}",
                                            clientID: nil, sentAt: Self.now + nextID, isRead: false))
                    nextID += 1
                }
            case 2:
                messages = messages.map { $0.senderID == 2 && !$0.isRead ? read($0) : $0 }
            default:
                // The sender's own view: the other side read its messages.
                messages = messages.map { $0.senderID == 1 && !$0.isRead ? read($0) : $0 }
            }
            let next = screen()
            try expectPatch(from: previous, to: next)
            previous = next
        }
    }

    @Test func aNewMessageIsOneAddAtTheEndOfTheMessages() throws {
        let alice = User(id: 1, name: "alice")
        let chat = Chat(id: 7, userA: 1, userB: 2, createdAt: 0)
        let builder = ChatViewModelBuilder(dates: dates, pages: MessagePages())
        var messages = (1...3).map { Message(id: $0, chatID: 7, senderID: 1, text: "m\($0)", clientID: nil, sentAt: Self.now, isRead: false) }
        func screen() -> ChatViewModel {
            builder.build(chat: chat, viewer: alice, contact: User(id: 2, name: "bob"), contactStatus: .online, blocked: false, page: BuilderTests.outline(of: messages, hasEarlier: false),
                          request: .latest, unread: 0, load: BuilderTests.loader(of: messages))
        }
        let before = screen()
        messages.append(Message(id: 4, chatID: 7, senderID: 1, text: "m4", clientID: nil, sentAt: Self.now, isRead: false))
        let after = screen()
        let patch = try #require(operations(from: before, to: after))
        #expect(patch.hasPrefix(#"[{"op":"add","path":"/messages/-","value":{"#))
        #expect(patch.components(separatedBy: #""op""#).count == 2)
    }

    // MARK: Chat lists

    /// Each version is built as a list of item view models, or (as the
    /// server builds lists from kept chats) from rows written before, whose
    /// layouts the document's names as fragments: either way, and between
    /// the two, the patch gives the next version.
    @Test(arguments: 1...20) func chatListsArePatchedIntoTheirNextVersion(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let builder = ChatListViewModelBuilder(dates: dates, presence: .nobody)
        let rows = ChatListRows()
        let page = ChatListPage(offset: 0, limit: 10)
        func build(_ summaries: [ChatSummary], fromRows: Bool) -> any JSONWritable {
            let items = ChatSummaryPage(page: page, of: summaries)
            guard fromRows else { return builder.build(items, page: page, now: Self.now) }
            return builder.build(items, page: page, now: Self.now, viewer: 1, written: rows.rows(of: ChatListRows.Page(viewer: 1, offset: 0)), rows: rows)
        }
        // Newest activity first, as the store gives them.
        var summaries = (1...12).map { id in
            ChatSummary(chatID: id, contact: User(id: 100 + id, name: "user \(id)"), createdAt: Self.now - id * 1000, lastMessage: nil, unreadCount: 0)
        }
        var nextMessage = 1
        var previous = build(summaries, fromRows: random.next(below: 2) == 0)
        for _ in 0..<60 {
            let index = random.next(below: summaries.count)
            let chat = summaries.remove(at: index)
            switch random.next(below: 3) {
            case 0, 1:
                // A message moves its chat to the top (from the middle, the end, or past the page).
                let message = Message(id: nextMessage, chatID: chat.chatID, senderID: chat.contact.id, text: "hello \(nextMessage)",
                                      clientID: nil, sentAt: Self.now + nextMessage, isRead: false)
                nextMessage += 1
                summaries.insert(ChatSummary(chatID: chat.chatID, contact: chat.contact, createdAt: chat.createdAt, lastMessage: message,
                                             unreadCount: chat.unreadCount + 1), at: 0)
            default:
                // Read: the unread count drops to zero where the chat is.
                summaries.insert(ChatSummary(chatID: chat.chatID, contact: chat.contact, createdAt: chat.createdAt,
                                             lastMessage: chat.lastMessage.map(read), unreadCount: 0), at: index)
            }
            let next = build(summaries, fromRows: random.next(below: 3) != 0)
            try expectPatch(from: previous, to: next)
            previous = next
        }
    }

    /// Between two lists written from rows, a read chat's row is looked
    /// into: the patch replaces its count, not the row.
    @Test func aReadChatInAListOfRowsIsOneReplaceOfItsCount() throws {
        let builder = ChatListViewModelBuilder(dates: dates, presence: .nobody)
        let rows = ChatListRows()
        let page = ChatListPage.first
        let message = Message(id: 9, chatID: 2, senderID: 102, text: "hello", clientID: nil, sentAt: Self.now, isRead: false)
        func list(unread: Int) -> ChatListViewModel<ChatListRowList> {
            let summaries = (1...5).map { id in
                ChatSummary(chatID: id, contact: User(id: 100 + id, name: "user \(id)"), createdAt: Self.now - id * 1000,
                            lastMessage: id == 2 ? message : nil, unreadCount: id == 2 ? unread : 0)
            }.sorted { ($0.lastMessage?.sentAt ?? $0.createdAt) > ($1.lastMessage?.sentAt ?? $1.createdAt) }
            return builder.build(ChatSummaryPage(page: page, of: summaries), page: page, now: Self.now, viewer: 1,
                                 written: rows.rows(of: ChatListRows.Page(viewer: 1, offset: 0)), rows: rows)
        }
        let before = list(unread: 1)
        let after = list(unread: 0)
        try expectPatch(from: before, to: after)
        let patch = try #require(operations(from: before, to: after))
        #expect(patch == #"[{"op":"replace","path":"/items/0/unreadMessageCount","value":0},{"op":"replace","path":"/unreadTotal","value":0}]"#)
    }

    // MARK: Orders

    @Test(arguments: 1...20) func orderListsArePatchedIntoTheirNextVersion(seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let builder = OrderViewModelBuilder(dates: dates)
        var orders: [Int: Order] = [:]
        var nextID = 1
        var query = OrdersQuery.standard
        query.limit = 8
        func list() -> OrdersViewModel {
            var shown = orders.values.filter { query.status == nil || $0.status == query.status }
            switch query.sort {
            case .newest: shown.sort { $0.id > $1.id }
            case .oldest: shown.sort { $0.id < $1.id }
            case .total: shown.sort { ($0.totalCents, $0.id) > ($1.totalCents, $1.id) }
            }
            return builder.buildList(Array(shown.prefix(query.limit + 1)), query: query, now: Self.now)
        }
        var previous = list()
        for _ in 0..<80 {
            switch random.next(below: 6) {
            case 0, 1:
                orders[nextID] = Order(id: nextID, userID: 1, name: "order \(nextID)", currency: "EUR", status: .placed,
                                       totalCents: random.next(below: 5000), itemCount: 1, createdAt: Self.now, items: [])
                nextID += 1
            case 2:
                // Moved to another status: it may leave a filtered list.
                if let id = orders.keys.sorted().randomElement(using: &random), let order = orders[id], let status = order.status.allowedMoves.randomElement(using: &random) {
                    orders[order.id] = Order(id: order.id, userID: 1, name: order.name, currency: order.currency, status: status,
                                             totalCents: order.totalCents, itemCount: order.itemCount, createdAt: order.createdAt, items: [])
                }
            case 3:
                if let id = orders.keys.sorted().randomElement(using: &random) { orders[id] = nil }
            case 4:
                query.status = query.status == nil ? .placed : nil
            default:
                query.sort = OrderSort.allCases.randomElement(using: &random)!
            }
            let next = list()
            try expectPatch(from: previous, to: next)
            previous = next
        }
    }

    @Test func anOrderChangesByReplacingWhatChangedInIt() throws {
        let builder = OrderViewModelBuilder(dates: dates)
        let placed = Order(id: 3, userID: 1, name: "Books", currency: "EUR", status: .placed, totalCents: 1999, itemCount: 1, createdAt: Self.now, items: [])
        let paid = Order(id: 3, userID: 1, name: "Books", currency: "EUR", status: .paid, totalCents: 1999, itemCount: 1, createdAt: Self.now, items: [])
        let before = builder.build(placed, now: Self.now, withLines: true)
        let after = builder.build(paid, now: Self.now, withLines: true)
        try expectPatch(from: before, to: after)
        let patch = try #require(operations(from: before, to: after))
        #expect(patch.contains(#"{"op":"replace","path":"/status","value":"paid"}"#))
        #expect(!patch.contains(#""path":"""#), "not the whole document")
    }

    // MARK: Limits

    @Test func aPatchNoSmallerThanTheWholeVersionIsNotMade() {
        let old = version(of: BadgeViewModel(unread: 1))
        let new = version(of: BadgeViewModel(unread: 2))
        #expect(JSONPatch.operations(from: old, to: new, limit: new.json.count) == nil)
        #expect(JSONPatch.operations(from: old, to: new, limit: 1000) != nil)
    }

    @Test func aDocumentOfAnotherShapeIsReplacedWhole() throws {
        let before = version(of: BadgeViewModel(unread: 1))
        let after = version(of: DeletedViewModel(id: "4", deleted: true))
        let operations = try #require(JSONPatch.operations(from: before, to: after, limit: .max))
        let patched = try JSONPatchApplier.apply(operations, to: before.json.array)
        #expect(try JSONPatchApplier.canonical(patched) == JSONPatchApplier.canonical(bytes: after.json.array))
    }

    // MARK: Helpers

    private func read(_ message: Message) -> Message {
        Message(id: message.id, chatID: message.chatID, senderID: message.senderID, text: message.text, clientID: message.clientID,
                sentAt: message.sentAt, isRead: true)
    }

    private func version(of model: some JSONWritable) -> JSONPatch.Version {
        let (bytes, layout) = JSONWriter.bytesAndLayout(of: model)
        return JSONPatch.Version(json: SharedBytes(bytes), layout: layout)
    }

    private func operations(from old: some JSONWritable, to new: some JSONWritable) -> String? {
        JSONPatch.operations(from: version(of: old), to: version(of: new), limit: .max).map { String(decoding: $0, as: UTF8.self) }
    }

    private func expectPatch(from old: some JSONWritable, to new: some JSONWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = version(of: old)
        let after = version(of: new)
        // The layout's bytes are the plain encoding's.
        #expect(after.json.array == ViewModelEncoding.json(new), sourceLocation: sourceLocation)
        let operations = try #require(JSONPatch.operations(from: before, to: after, limit: .max), sourceLocation: sourceLocation)
        let patched = try JSONPatchApplier.apply(operations, to: before.json.array)
        #expect(try JSONPatchApplier.canonical(patched) == JSONPatchApplier.canonical(bytes: after.json.array),
                "\(String(decoding: operations, as: UTF8.self))",
                sourceLocation: sourceLocation)
        if before.json.array == after.json.array {
            #expect(operations == Array("[]".utf8), sourceLocation: sourceLocation)
        }
    }
}

/// A small seeded generator, so that a failing sequence can be run again.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int {
        Int(next(upperBound: UInt64(bound)))
    }
}
