import TailorLoop

/// Streams with new events to write, gathered by their loop, so that a change
/// wakes each loop once per slice of its streams and the loop writes the whole
/// slice in one job.
package struct DeliveryBatches {
    /// A loop starts writing once this many of its streams are gathered, while
    /// the rest of a large fan-out is still being gathered.
    package static let sliceSize = 256

    private var byLoop: [Int: (loop: EventLoop, subscribers: [Subscriber])] = [:]

    package mutating func add(_ subscriber: Subscriber) {
        let loop = subscriber.stream.loop
        byLoop[loop.index, default: (loop, [])].subscribers.append(subscriber)
        if let slice = byLoop[loop.index], slice.subscribers.count >= Self.sliceSize {
            byLoop[loop.index] = nil
            Self.deliver(slice.subscribers, on: loop)
        }
    }

    /// Queues a job on each loop for the streams gathered and not yet started.
    package func start() {
        for (loop, subscribers) in byLoop.values { Self.deliver(subscribers, on: loop) }
    }

    private static func deliver(_ subscribers: [Subscriber], on loop: EventLoop) {
        loop.execute {
            for subscriber in subscribers { subscriber.deliver() }
        }
    }
}
