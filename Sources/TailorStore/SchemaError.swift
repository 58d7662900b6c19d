/// Why a database's schema cannot be used by this program.
public enum SchemaError: Error, CustomStringConvertible {
    case newerThanProgram(database: Int, program: Int)
    case brokenReference(table: String)

    public var description: String {
        switch self {
        case .brokenReference(let table):
            "a migration left rows in \(table) that refer to nothing"
        case .newerThanProgram(let database, let program):
            "the database has schema version \(database), newer than this program's \(program)"
        }
    }
}
