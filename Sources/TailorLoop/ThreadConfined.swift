import Glibc
import Synchronization

/// A value handed between threads and used by one of them at a time: a
/// database connection (SQLite's are opened NOMUTEX, libpq's are never
/// shared), the writer's state on the writer's thread. The compiler cannot
/// see that confinement, so the box says it, once, for all of them.
///
/// In debug builds the box checks it on every use, as NIO's `NIOLoopBound`
/// checks its loop: the first thread to use the value owns it, and a use from
/// any other thread stops the program, until the owner hands it over (a pool
/// taking a connection back).
///
/// A value that changes (a state, a queue) is changed in place with
/// `withValue`, so that no class is needed to hold it.
public final class ThreadConfined<Value>: @unchecked Sendable {
    private var stored: Value
    #if DEBUG
    /// The thread that uses the value (`pthread_self`), 0 while none does.
    private let owner = Atomic<UInt>(0)
    #endif

    public init(_ value: Value) {
        stored = value
    }

    public var value: Value {
        claim()
        return stored
    }

    /// Runs `body` on the value, which it may change in place.
    public func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        claim()
        return try body(&stored)
    }

    /// Checks, in debug builds, that the caller's thread owns the value.
    @inline(__always)
    private func claim() {
        #if DEBUG
        let me = UInt(bitPattern: Int(bitPattern: pthread_self()))
        let (claimed, current) = owner.compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing)
        precondition(claimed || current == me, "a thread-confined \(Value.self) was used by a second thread")
        #endif
    }

    /// The thread that used the value is done with it: the next thread to
    /// use it owns it.
    public func handOver() {
        #if DEBUG
        owner.store(0, ordering: .releasing)
        #endif
    }
}
