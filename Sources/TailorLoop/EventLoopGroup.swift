import Synchronization

/// The server's event loops, one per usable CPU unless told otherwise.
public final class EventLoopGroup: Sendable {
    public let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)

    public init(loopCount: Int = ProcessSetup.usableCPUCount) throws {
        loops = try (0..<max(loopCount, 1)).map { try EventLoop(index: $0) }
        for loop in loops { loop.start() }
    }

    /// The loops in turn, for work not tied to a connection.
    public func next() -> EventLoop {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// Runs `body` on every loop's thread and waits for all of them.
    public func executeOnEachAndWait(_ body: @escaping @Sendable (EventLoop) -> Void) {
        for loop in loops { loop.executeAndWait { body(loop) } }
    }

    /// Ends every loop's thread. Work still queued is run first.
    public func shutdown() {
        for loop in loops { loop.stopAndJoin() }
    }
}
