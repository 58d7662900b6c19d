import TailorLoop

/// Streams with new events to write, gathered by their loop, so that a change
/// wakes each loop once and the loop writes all of its streams in one job.
struct Deliveries {
    private var byLoop: [Int: (loop: EventLoop, subscribers: [Subscriber])] = [:]

    mutating func add(_ subscriber: Subscriber) {
        let loop = subscriber.stream.loop
        byLoop[loop.index, default: (loop, [])].subscribers.append(subscriber)
    }

    /// Queues one job on each loop.
    func start() {
        for (loop, subscribers) in byLoop.values {
            loop.execute {
                for subscriber in subscribers { subscriber.deliver() }
            }
        }
    }
}
