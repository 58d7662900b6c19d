/// What servers say on the bus about commits, as text. Three kinds:
///
/// - To everyone, on the schema's subject: `position origin users [body]`,
///   the users as `1,2` or `*` for anyone. Servers of the earlier version
///   read this and only this, so it stays as it was.
/// - To one server, on its own subject, for the users it serves:
///   `e position origin users told [body]`.
/// - To everyone, a few times a second: `s origin told`, the stubs of the
///   commits the server sent to no one or to some servers only.
///
/// Besides, on a subject of their own, the users each server serves
/// (`interest`).
///
/// `told` is the stubs the sender had not sent everyone yet, `12:1,2;13:4`,
/// or `-` for none: a server sent a commit by its writer then knows every
/// earlier commit of that writer, and waits for no stub of theirs.
public enum BusWire {
    /// A commit sent to every server.
    public static func toEveryone(_ commit: AnnouncedCommit) -> String {
        "\(commit.position) \(commit.origin) " + users(commit.users) + (commit.carried.map { " " + $0 } ?? "")
    }

    /// A commit sent to one server, with the stubs not yet sent everyone.
    public static func toOne(_ commit: AnnouncedCommit, told: [CommitStub]) -> String {
        "e \(commit.position) \(commit.origin) " + users(commit.users) + " " + text(of: told) + (commit.carried.map { " " + $0 } ?? "")
    }

    /// The stubs `origin` had not sent everyone.
    public static func stubs(from origin: String, _ told: [CommitStub]) -> String {
        "s \(origin) " + text(of: told)
    }

    /// A commit heard of: its position, the server that wrote it, whom it
    /// touches (nil: anyone) and its entry's body when the message carried it.
    public typealias Heard = (position: Int, origin: Substring, users: [Int]?, body: Substring?)

    /// The commits a message of any kind tells of, in the order it tells
    /// them; none for a message that says nothing readable.
    public static func parse(_ message: String) -> [Heard] {
        switch message.first {
        case "e":
            let parts = message.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard parts.count >= 5, let position = Int(parts[1]), let users = audience(parts[3]) else { return [] }
            return stubs(parts[4], origin: parts[2]) + [(position, parts[2], users, parts.count > 5 ? parts[5] : nil)]
        case "s":
            let parts = message.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return [] }
            return stubs(parts[2], origin: parts[1])
        default:
            let parts = message.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3, let position = Int(parts[0]), let users = audience(parts[2]) else { return [] }
            return [(position, parts[1], users, parts.count > 3 ? parts[3] : nil)]
        }
    }

    /// What a server serves, on the interest subject: `+ origin users` (it
    /// comes to serve them too) or `= origin users` (all it serves).
    public static func interest(of origin: String, _ users: [Int], replacing: Bool) -> String {
        (replacing ? "= " : "+ ") + origin + " " + Store.listText(users)
    }

    /// What a message of `interest(…)` says; nil when it says nothing readable.
    public static func parseInterest(_ message: String) -> (origin: Substring, users: [Int], replacing: Bool)? {
        let parts = message.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "+" || parts[0] == "=", let users = Store.users(fromListText: String(parts[2])) else { return nil }
        return (parts[1], users, parts[0] == "=")
    }

    private static func users(_ users: [Int]?) -> String {
        users.map(Store.listText) ?? "*"
    }

    /// The users `text` names as `listText` writes them, or anyone (nil)
    /// for `*`; nil outside, when it names neither.
    private static func audience(_ text: Substring) -> [Int]?? {
        text == "*" ? .some(nil) : Store.users(fromListText: String(text)).map { .some($0) }
    }

    private static func text(of told: [CommitStub]) -> String {
        told.isEmpty ? "-" : told.map { "\($0.position):" + Store.listText($0.users) }.joined(separator: ";")
    }

    /// The stubs of `told`, read byte by byte: a server that serves none of
    /// their users reads hundreds a second, and splitting them into strings
    /// cost more than the rest of passing them over. A stub not readable is left out.
    private static func stubs(_ text: Substring, origin: Substring) -> [Heard] {
        guard text != "-" else { return [] }
        var heard: [Heard] = []
        var position: Int?
        var users: [Int] = []
        var number: Int?
        var readable = true
        func endStub() {
            if readable, let position {
                if let number { users.append(number) }
                heard.append((position, origin, users, nil))
            }
            (position, users, number, readable) = (nil, [], nil, true)
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (times, overflow) = (number ?? 0).multipliedReportingOverflow(by: 10)
                let (sum, overflowAgain) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                if overflow || overflowAgain { readable = false }
                number = sum
            case UInt8(ascii: ":"):
                if position != nil || number == nil { readable = false }
                (position, number) = (number, nil)
            case UInt8(ascii: ","):
                if let number, position != nil { users.append(number) } else { readable = false }
                number = nil
            case UInt8(ascii: ";"):
                endStub()
            default:
                readable = false
            }
        }
        endStub()
        return heard
    }
}
