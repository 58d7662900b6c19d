import Glibc
import TailorDomain
import TailorLoop
import TailorStore

/// `tailor users disable NAME` and `enable NAME`: an operator stops an
/// account, or lets it in again, while servers run.
///
/// A disabled account signs in with nothing (its account token, its sessions,
/// its password), and what it had open ends at once on every server:
///
/// - On PostgreSQL the change is written like a server's write, with an entry
///   in the change feed (its sessions ended, the account disabled) that every
///   server follows: each forgets the account's tokens and ends its streams.
/// - On SQLite the one server owns the file and its feed, so the change is
///   written beside it and the server is told with SIGUSR1 (found as the
///   holder of the file's lock in `/proc/locks`): it then ends the streams and
///   forgets the tokens of every disabled account it holds.
public enum AccountAdministration {
    public enum Failure: Error, CustomStringConvertible {
        case unknownUser(String)

        public var description: String {
            switch self {
            case .unknownUser(let name): "there is no user named \(name)"
            }
        }
    }

    /// Disables (or enables) the account of `name` in the database at
    /// `location`; says what was done, for the operator.
    public static func setDisabled(_ disabled: Bool, name: String, in location: DatabaseLocation, now: Int) throws -> String {
        switch location {
        case .sqlite(let path):
            let connection = try SQLiteConnection(path: path)
            let store = Store(connection)
            guard let (user, ended) = try connection.transaction({ try store.setDisabled(name, at: disabled ? now : nil) }) else {
                throw Failure.unknownUser(name)
            }
            let done = "\(user.name) \(disabled ? "disabled" : "enabled")" + (disabled ? ", \(ended.count) sessions ended" : "")
            guard disabled else { return done }
            guard let server = ServerOfFile.holder(of: path) else { return done + "; no server uses \(path) now" }
            guard kill(server, SIGUSR1) == 0 else { return done + "; the server (process \(server)) could not be told: \(String(cString: strerror(errno)))" }
            return done + "; the server (process \(server)) ends their streams"
        case .postgres:
            let (database, writer) = try Database.open(location)
            defer { database.close() }
            let store = Store(writer)
            let feed = try FeedAppender(store: store, window: TailorConfiguration().feedWindow, origin: "tailor-users")
            let done = try writer.transaction { () -> (User, [Session])? in
                guard let (user, ended) = try store.setDisabled(name, at: disabled ? now : nil) else { return nil }
                if disabled {
                    let changes = ended.map { Change.sessionEnded(tokenHash: $0.tokenHash) } + [.accountDisabled(user: user.id)]
                    _ = try feed.append(ChangeEncoding.bytes(of: changes), in: store)
                }
                return (user, ended)
            }
            guard let (user, ended) = done else { throw Failure.unknownUser(name) }
            return "\(user.name) \(disabled ? "disabled, \(ended.count) sessions ended on every server" : "enabled")"
        }
    }
}

/// The process that holds a SQLite file's server lock (`FileLock`, an
/// exclusive `flock`), from the kernel's list of locks.
enum ServerOfFile {
    static func holder(of path: String) -> pid_t? {
        var info = stat()
        guard stat(path, &info) == 0, let locks = SmallFile.read("/proc/locks") else { return nil }
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        func hex(_ number: UInt64) -> String {
            let digits = String(number, radix: 16)
            return digits.count < 2 ? "0" + digits : digits
        }
        // "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF": the holder, then major:minor:inode.
        let file = "\(hex(major)):\(hex(minor)):\(info.st_ino)"
        for line in String(decoding: locks, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == file else { continue }
            return pid_t(fields[4])
        }
        return nil
    }
}
