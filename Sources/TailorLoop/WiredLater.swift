import Synchronization

/// A value wired in after its owner is made (a callback into a part made
/// later), read from any thread. It is kept in a class of its own: a function
/// kept straight in a `Mutex` came back from each `withLock` wrapped once
/// more, and every call went through all the wrappers, slower at each read.
public final class WiredLater<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private let box = Mutex<Box?>(nil)

    public init() {}

    public func wire(_ value: Value) {
        box.withLock { $0 = Box(value) }
    }

    /// The value wired in; nil before.
    public var value: Value? {
        box.withLock { $0 }?.value
    }
}
