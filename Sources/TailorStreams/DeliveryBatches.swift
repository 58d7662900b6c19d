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
            // Handed over even on its own loop: a slice fills while a lane visits its state.
            Self.handOver(slice.subscribers, to: loop)
        }
    }

    /// Writes the streams gathered and not yet started: those of the caller's
    /// own loop (a lane's pass runs on one) at once, the others' in a job on
    /// their loop.
    package func start() {
        for (loop, subscribers) in byLoop.values {
            guard loop.inLoopThread else {
                Self.handOver(subscribers, to: loop)
                continue
            }
            for subscriber in subscribers { subscriber.deliver() }
        }
    }

    private static func handOver(_ subscribers: [Subscriber], to loop: EventLoop) {
        loop.execute {
            for subscriber in subscribers { subscriber.deliver() }
        }
    }
}
