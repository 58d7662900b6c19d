/// A list of ids as one parameter of a statement: a JSON array on SQLite,
/// an array on PostgreSQL. A statement is then one text whatever the ids,
/// prepared once: a connection keeps every text it prepared (PostgreSQL on
/// the server too), and ids written into the text would make a statement of
/// every list, each kept for good.
extension Store {
    /// A query of the ids `idList` binds at `placeholder` (`?`, or `?5` among numbered ones).
    func idsQuery(_ placeholder: String = "?") -> String {
        switch connection.engine {
        case .sqlite: "SELECT value FROM json_each(\(placeholder))"
        case .postgres: "SELECT unnest(CAST(\(placeholder) AS bigint[]))"
        }
    }

    /// `ids` as the text `idsQuery` reads.
    func idList(_ ids: some Collection<Int>) -> String {
        let numbers = ids.map(String.init).joined(separator: ",")
        return switch connection.engine {
        case .sqlite: "[\(numbers)]"
        case .postgres: "{\(numbers)}"
        }
    }
}
