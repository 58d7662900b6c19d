/// The answer to a statement that was queued rather than sent (see
/// `DatabaseConnection.firstLater`): reading it sends what is queued, if it
/// is still unsent, and then says what the statement came to.
///
/// Queued statements are sent together, in one round trip on PostgreSQL, so
/// a batch of events asks first and reads every answer after.
public struct Later<Value> {
    private let read: () throws -> Value

    /// An answer read by `read`, which sends what it waits for.
    public init(_ read: @escaping () throws -> Value) {
        self.read = read
    }

    /// An answer known already: the statement ran when it was asked.
    public init(result: Result<Value, any Error>) {
        read = { try result.get() }
    }

    /// An answer that needs no statement at all.
    public static func known(_ value: Value) -> Later<Value> {
        Later(result: .success(value))
    }

    /// The statement's result, or the error that refused it.
    public func value() throws -> Value {
        try read()
    }

    /// What follows from the answer, worked out when it is read: the
    /// follow-up may run statements of its own.
    public func then<Next>(_ next: @escaping (Value) throws -> Next) -> Later<Next> {
        Later<Next> { try next(try read()) }
    }
}
