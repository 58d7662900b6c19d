/// Another server already uses the database.
public struct DatabaseInUse: Error, CustomStringConvertible {
    public let database: String

    public var description: String {
        "another Tailor server uses the database \(database); stop it first: one server per database"
    }
}
