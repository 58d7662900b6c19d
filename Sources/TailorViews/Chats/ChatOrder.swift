/// A kept user's chats in the order their list shows them: most recent
/// activity first, the larger chat id first among equals (the order the store
/// reads them in). A change moves one chat: found from the top, where the
/// active chats are, and put back by a binary search, so that a list of a
/// thousand chats is not sorted again for a message in one of them.
package struct ChatOrder: Sendable, Equatable {
    /// What places a chat in the list.
    package struct Place: Sendable, Equatable, Comparable {
        package let activityAt: Int
        package let chat: Int

        package init(activityAt: Int, chat: Int) {
            self.activityAt = activityAt
            self.chat = chat
        }

        /// Earlier in the list: newer activity, then the larger id.
        package static func < (a: Place, b: Place) -> Bool {
            (a.activityAt, a.chat) > (b.activityAt, b.chat)
        }
    }

    private var places: [Place]

    package init(_ places: [Place]) {
        self.places = places.sorted()
    }

    package var count: Int { places.count }

    /// The chat ids of the list from `offset`, at most `limit` of them.
    package func chats(offset: Int, limit: Int) -> [Int] {
        guard offset < places.count, limit > 0 else { return [] }
        return places[offset..<min(places.count, offset + min(limit, places.count - offset))].map(\.chat)
    }

    /// `chat`'s activity is now `activityAt`: it moves to its new place.
    package mutating func move(_ chat: Int, to activityAt: Int) {
        let place = Place(activityAt: activityAt, chat: chat)
        if let index = places.firstIndex(where: { $0.chat == chat }) {
            guard places[index] != place else { return }
            places.remove(at: index)
        }
        places.insert(place, at: insertionIndex(of: place))
    }

    private func insertionIndex(of place: Place) -> Int {
        var low = 0, high = places.count
        while low < high {
            let middle = (low + high) / 2
            if places[middle] < place { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
