/// The store's SQL is written once, as SQLite reads it; PostgreSQL reads it
/// after two changes made here, once per statement:
/// - parameters `?` (numbered in order) and `?N` become `$N`;
/// - `INDEXED BY name`, SQLite's hint of which index to use, is left out:
///   PostgreSQL's planner chooses by itself and has no such clause.
/// Quoted text ('…' and "…") is copied as it is.
enum PostgresSQL {
    static func translate(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count)
        var next = 1
        var quote: Character?
        var characters = Array(sql)[...]
        while let character = characters.popFirst() {
            if let open = quote {
                output.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                output.append(character)
            case "?":
                let digits = characters.prefix(while: \.isNumber)
                characters = characters.dropFirst(digits.count)
                if digits.isEmpty {
                    output += "$\(next)"
                    next += 1
                } else {
                    output += "$" + String(digits)
                }
            default:
                if character == "I", characters.starts(with: "NDEXED BY ") {
                    characters = characters.dropFirst("NDEXED BY ".count)
                    characters = characters.drop(while: { $0.isLetter || $0.isNumber || $0 == "_" })
                    characters = characters.drop(while: { $0 == " " })
                } else {
                    output.append(character)
                }
            }
        }
        return output
    }
}
