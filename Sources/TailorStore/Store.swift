/// The model's reads and writes over one connection.
///
/// The event router's writer uses one on the writer connection; readers use one
/// on a read-only connection each. Every method is one or a few prepared
/// statements; a write's caller decides the transaction around it.
public struct Store {
    public let connection: SQLiteConnection

    public init(_ connection: SQLiteConnection) {
        self.connection = connection
    }
}

/// A write that the model's rules refuse.
public enum StoreError: Error, Equatable, Sendable {
    case nameTaken
    case unknownUser
    case notFound
    case invalidTransition(from: OrderStatus, to: OrderStatus)
    /// The user has as many orders as one account may have.
    case tooManyOrders
}
