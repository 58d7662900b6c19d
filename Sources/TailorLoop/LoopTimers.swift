/// The timers of one event loop, soonest first: what `EventLoop.after` and
/// `EventLoop.sleep` wait for. The loop's own `epoll_wait` sleeps until the
/// first is due, so that a timer wakes one thread, the loop's. (Swift's
/// `Task.sleep` wakes three for each: Dispatch's timer thread, a worker of
/// its pool and then the loop, each wake-up some 50–100 µs of CPU on a
/// shared machine's cores.)
///
/// A binary heap, owned by the loop's thread; timers due at the same time
/// run in the order they were set. A value, tested alone.
struct LoopTimers {
    private struct Timer {
        /// MonotonicClock.
        let due: UInt64
        /// How many timers were set before it: the order among those due at once.
        let order: UInt64
        let body: @Sendable () -> Void

        func isBefore(_ other: Timer) -> Bool {
            due != other.due ? due < other.due : order < other.order
        }
    }

    private var heap: [Timer] = []
    private var set: UInt64 = 0

    /// When the first timer is due (MonotonicClock); nil when there is none.
    var nextDue: UInt64? { heap.first?.due }

    var count: Int { heap.count }

    /// Runs `body` once `due` (MonotonicClock) has come.
    mutating func add(due: UInt64, _ body: @escaping @Sendable () -> Void) {
        heap.append(Timer(due: due, order: set, body: body))
        set &+= 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].isBefore(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the timers due by `now`, in their order, for the loop to run.
    mutating func takeDue(by now: UInt64) -> [@Sendable () -> Void] {
        var due: [@Sendable () -> Void] = []
        while let first = heap.first, first.due <= now {
            due.append(first.body)
            removeFirst()
        }
        return due
    }

    private mutating func removeFirst() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count, heap[left].isBefore(heap[first]) { first = left }
            if right < heap.count, heap[right].isBefore(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
