@testable import TailorViews
import Testing

/// A kept list's order alone: newest activity first, the larger id first
/// among equals, and a chat that changes moves to its new place.
@Suite struct ChatOrderTests {
    private typealias Place = ChatOrder.Place

    @Test func aChangedChatMovesToItsPlaceAndPagesReadInOrder() {
        var order = ChatOrder([Place(activityAt: 10, chat: 1), Place(activityAt: 30, chat: 2), Place(activityAt: 20, chat: 3),
                               Place(activityAt: 20, chat: 4)])
        #expect(order.chats(offset: 0, limit: 10) == [2, 4, 3, 1])
        order.move(1, to: 40)
        #expect(order.chats(offset: 0, limit: 10) == [1, 2, 4, 3])
        order.move(2, to: 20)
        #expect(order.chats(offset: 0, limit: 10) == [1, 4, 3, 2], "ties: the larger id first")
        order.move(5, to: 25)
        #expect(order.chats(offset: 0, limit: 10) == [1, 5, 4, 3, 2], "a chat not there yet is added")
        #expect(order.count == 5)
        #expect(order.chats(offset: 1, limit: 2) == [5, 4])
        #expect(order.chats(offset: 4, limit: 9) == [2])
        #expect(order.chats(offset: 5, limit: 1) == [])
        #expect(order.chats(offset: 0, limit: Int.max).count == 5)
    }

    @Test func randomMovesKeepTheSortedOrder() {
        var random = SystemRandomNumberGenerator()
        var activity: [Int: Int] = [:]
        for chat in 0..<200 { activity[chat] = Int.random(in: 0..<50, using: &random) }
        var order = ChatOrder(activity.map { Place(activityAt: $1, chat: $0) })
        for _ in 0..<2_000 {
            let chat = Int.random(in: 0..<220, using: &random)
            let time = Int.random(in: 0..<60, using: &random)
            activity[chat] = time
            order.move(chat, to: time)
        }
        let expected = activity.sorted { ($0.value, $0.key) > ($1.value, $1.key) }.map(\.key)
        #expect(order.chats(offset: 0, limit: Int.max) == expected)
    }
}
