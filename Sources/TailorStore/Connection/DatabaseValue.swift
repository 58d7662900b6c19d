/// A value bound to a statement's parameter, on either database.
public enum DatabaseValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

/// What can be bound as a statement parameter.
public protocol DatabaseBindable {
    var databaseValue: DatabaseValue { get }
}

extension Int: DatabaseBindable { public var databaseValue: DatabaseValue { .integer(Int64(self)) } }
extension Int64: DatabaseBindable { public var databaseValue: DatabaseValue { .integer(self) } }
extension Double: DatabaseBindable { public var databaseValue: DatabaseValue { .real(self) } }
extension String: DatabaseBindable { public var databaseValue: DatabaseValue { .text(self) } }
extension Array: DatabaseBindable where Element == UInt8 { public var databaseValue: DatabaseValue { .blob(self) } }
extension DatabaseValue: DatabaseBindable { public var databaseValue: DatabaseValue { self } }
extension Optional: DatabaseBindable where Wrapped: DatabaseBindable {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}
