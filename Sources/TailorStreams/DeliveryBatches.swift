/// Streams with new events to write, gathered while a lane visits its state
/// and written after the visit, on the lane's loop (which is theirs): a slice
/// at a time, so that between the slices of a fan-out to thousands of
/// streams the loop serves its other sockets.
package struct DeliveryBatches {
    /// Streams written in one go, before the loop polls its sockets again.
    package static let sliceSize = 256

    private var subscribers: [Subscriber] = []

    package mutating func add(_ subscriber: Subscriber) {
        subscribers.append(subscriber)
    }

    /// Writes the first slice now and queues the others, each a job of the
    /// loop. Call on the streams' loop, outside the lane's state.
    package func start() {
        guard let loop = subscribers.first?.stream.loop else { return }
        for start in stride(from: 0, to: subscribers.count, by: Self.sliceSize) {
            let slice = subscribers[start..<min(start + Self.sliceSize, subscribers.count)]
            if start == 0 {
                for subscriber in slice { subscriber.deliver() }
            } else {
                loop.execute { for subscriber in slice { subscriber.deliver() } }
            }
        }
    }
}
