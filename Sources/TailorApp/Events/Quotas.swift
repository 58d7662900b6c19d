/// How much one user may hold, checked by the writer inside its transaction,
/// where concurrent requests cannot pass a count together.
public struct Quotas: Sendable, Equatable {
    /// Orders (409 `too_many_orders` past it).
    public var ordersPerUser = 10_000
    /// Browser sessions: a new one past it ends the oldest.
    public var sessionsPerUser = 100

    public init() {}
}
