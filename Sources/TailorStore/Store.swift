/// The model's reads and writes over one connection.
///
/// The event router's writer uses one on the writer connection; readers use one
/// on a reader connection each. The same queries run on SQLite and PostgreSQL. Every method is one or a few prepared
/// statements; a write's caller decides the transaction around it.
public struct Store {
    public let connection: any DatabaseConnection

    public init(_ connection: any DatabaseConnection) {
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
    /// A row that a statement promises was not there.
    case missingRow
    /// An order's status that this program does not know (a newer one wrote it).
    case unknownStatus(String)
    /// The user has as many push subscriptions as one account may have.
    case tooManySubscriptions
    /// One member of the chat blocked the other: no message is stored.
    case blocked
    /// The account is disabled: no session is started for it.
    case accountDisabled
}

extension Store {
    /// A row that a statement promises: an `INSERT … RETURNING` that did not
    /// throw, or the row whose conflict stopped an insert.
    func expectRow<Value>(_ value: Value?) throws -> Value {
        guard let value else { throw StoreError.missingRow }
        return value
    }
}
