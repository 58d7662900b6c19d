import Foundation
@testable import TailorDomain
@testable import TailorViews
import Testing

/// The view models write their own JSON. It must be exactly what a sorted-keys
/// encoder gives: Foundation's serializer, reading our bytes and writing them
/// again with sorted keys, must give back the very same bytes.
@Suite struct JSONWriterTests {
    /// Parses `bytes` and writes them again the canonical way.
    private func canonical(_ bytes: [UInt8]) throws -> [UInt8] {
        let object = try JSONSerialization.jsonObject(with: Data(bytes))
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    private func expectCanonical(_ value: some JSONWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = JSONWriter.bytes(of: value)
        #expect(String(decoding: bytes, as: UTF8.self) == String(decoding: try canonical(bytes), as: UTF8.self), sourceLocation: sourceLocation)
    }

    static let awkward = "quote \" backslash \\ slash / tab \t newline \n bell \u{07} nul \u{00} é 日本 🧵 \u{2028}"

    let open = ActionViewModel.get("/api/chats/1")

    /// A message whose text and name look like a state: the list writes the
    /// state where the message's own field is, noted when it was written.
    @Test func aMessageListWritesEachStateInItsOwnField() throws {
        let lookalike = #"x","state":"sent","y":""#
        let message = MessageViewModel(id: "1", text: lookalike, sender: "other", senderName: #""state":"sent"#, state: "sent",
                                       time: "14:05", sentAt: "2026-11-21T14:05:09Z")
        var first = MessageList()
        first.append(id: 1, message)
        var read = MessageList()
        read.append(first.entries[0], of: first, read: true)
        let messages = try #require(try JSONSerialization.jsonObject(with: Data(JSONWriter.bytes(of: read))) as? [[String: String]])
        #expect(messages == [["id": "1", "text": lookalike, "sender": "other", "senderName": #""state":"sent"#, "state": "read",
                              "time": "14:05", "sentAt": "2026-11-21T14:05:09Z"]])
    }

    @Test func chatViewModelsAreCanonical() throws {
        let message = MessageViewModel(id: "1", text: Self.awkward, sender: "me", senderName: "alice", state: "read",
                                       time: "14:05", sentAt: "2026-11-21T14:05:09Z")
        var messages = MessageList()
        messages.append(id: 1, message)
        messages.append(id: 2, message)
        try expectCanonical(ChatViewModel(id: "1", title: "bob", contactStatus: .online, blocked: false, unreadMessageCount: 2, messages: messages,
                                          earlier: .get("/api/chats/1?before=1"),
                                          actions: .init(send: .post("/api/chats/1/messages"), markRead: .post("/api/chats/1/read"),
                                                         typing: .post("/api/chats/1/typing"), block: .post("/api/chats/1/block"), unblock: nil)))
        try expectCanonical(ChatViewModel(id: "1", title: "", contactStatus: nil, blocked: true, unreadMessageCount: 0, messages: MessageList(), earlier: nil,
                                          actions: .init(send: .post("/a"), markRead: .post("/b"), typing: .post("/c"), block: nil,
                                                         unblock: .delete("/d"))))
        let item = ChatListItemViewModel(id: "1", contact: "bob", contactStatus: ContactStatusViewModel(away: "last seen 14:05"), message: "", lastMessageDate: "", lastMessageAt: nil,
                                         unreadMessageCount: 0, open: open)
        try expectCanonical(ChatListViewModel(title: "Chats", unreadTotal: 3, items: [item, item], next: .get("/api/chats?offset=2"),
                                              actions: .init(addChat: .post("/api/chats"))))
        try expectCanonical(ChatListViewModel(title: "Chats", unreadTotal: 0, items: [ChatListItemViewModel](), next: nil, actions: .init(addChat: .post("/api/chats"))))
        try expectCanonical(BadgeViewModel(unread: -1))
    }

    @Test func orderViewModelsAreCanonical() throws {
        let action = OrderActionViewModel(name: "pay", label: "Pay", method: "PATCH", href: "/api/orders/1", body: ["status": "paid", "a": "b"])
        var order = OrderViewModel(id: "1", name: "Tea #1", status: "placed", statusLabel: "Placed", total: "¥1,234", totalCents: 1234,
                                   currency: "JPY", date: "Yesterday", createdAt: "2026-11-20T01:00:00Z", itemCount: 3, open: open,
                                   actions: [action, action], lines: [OrderLineViewModel(title: Self.awkward, quantity: 3, unitPrice: "¥1", lineTotal: "¥3")])
        try expectCanonical(order)
        order.lines = nil
        let compact = CompactOrderViewModel(id: "2", name: "Milk #2", statusLabel: "Paid", total: "$1.00", open: open)
        try expectCanonical(OrdersViewModel(title: "Orders", count: 2, sort: "newest", layout: "list", items: [.full(order), .compact(compact)],
                                            next: .get("/api/orders?q=caf%C3%A9&offset=2&limit=2")))
        try expectCanonical(OrdersViewModel(title: "Orders", count: 0, sort: "total", layout: "compact", items: [], next: nil))
        try expectCanonical(DeletedViewModel(id: "1", deleted: true))
        try expectCanonical(NotificationViewModel(chatID: 2, contact: "bob", text: Self.awkward))
    }
}
