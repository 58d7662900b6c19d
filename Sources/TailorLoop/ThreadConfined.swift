/// A value handed between threads and used by one of them at a time: a
/// database connection (SQLite's are opened NOMUTEX, libpq's are never
/// shared), the writer's state on the writer's thread. The compiler cannot
/// see that confinement, so the box says it, once, for all of them.
public final class ThreadConfined<Value>: @unchecked Sendable {
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }
}
