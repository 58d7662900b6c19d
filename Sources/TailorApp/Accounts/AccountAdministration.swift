import Glibc
import TailorDomain
import TailorFeed
import TailorLoop
import TailorPresence
import TailorStore
import TailorViews

/// `tailor users disable NAME` and `enable NAME`: an operator stops an
/// account, or lets it in again, while servers run.
///
/// A disabled account signs in with nothing (its account token, its sessions,
/// its password), and what it had open ends at once on every server. The
/// command returns once every running server has confirmed that it lets the
/// account in no more (or says which did not within `confirmationTime`):
///
/// - On PostgreSQL the change is written like a server's write, with an entry
///   in the change feed (its sessions ended, the account disabled) that every
///   server follows: each forgets the account's tokens, ends its streams and
///   says so on the presence channel, where the command listens. It asks who
///   runs there first (a roll call, answered with a heartbeat).
/// - On SQLite the one server owns the file and its feed, so the change is
///   written beside it and the server is told with SIGUSR1 (found as the
///   holder of the file's lock in `/proc/locks`): it then ends the streams and
///   forgets the tokens of every disabled account it holds, and answers with
///   SIGUSR2.
public enum AccountAdministration {
    public enum Failure: Error, CustomStringConvertible {
        case unknownUser(String)

        public var description: String {
            switch self {
            case .unknownUser(let name): "there is no user named \(name)"
            }
        }
    }

    /// Seconds the command waits for the servers' confirmations at most.
    static let confirmationTime = 10.0
    /// Seconds the servers have to answer the roll call, at least.
    static let rollCallTime = 1.0
    /// A SQLite server's answer to SIGUSR1: the disabled accounts are out.
    static let confirmationSignal = SIGUSR2

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
            let done = "\(user.name) \(disabled ? "disabled" : "enabled"), \(ended.count) sessions ended"
            guard disabled else { return done }
            guard let server = ServerOfFile.holder(of: path) else { return done + "; no server uses \(path) now" }
            return done + "; " + tellAndWait(server)
        case .postgres(let url):
            let listener = try PostgresConnection(url: url)
            try Store.listenToPresence(on: listener, namedWith: "-users")
            let me = "users-\(getpid())"
            try Store.notifyPresence([PresenceSignal.rollCall.payload(from: me)], on: listener)
            let (database, writer) = try Database.open(location)
            defer { database.close() }
            let store = Store(writer)
            let feed = try FeedAppender(store: store, window: TailorConfiguration().feedWindow, origin: "tailor-users")
            let done = try writer.transaction { () -> (User, [Session], position: Int?)? in
                guard let (user, ended) = try store.setDisabled(name, at: disabled ? now : nil) else { return nil }
                let changes = ended.map { Change.sessionEnded(tokenHash: $0.tokenHash) } + (disabled ? [.accountDisabled(user: user.id)] : [])
                guard !changes.isEmpty else { return (user, ended, nil) }
                return (user, ended, try feed.append(ChangeEncoding.bytes(of: changes), touching: ChangeAudience.users(of: changes), in: store))
            }
            guard let (user, ended, position) = done else { throw Failure.unknownUser(name) }
            let said = "\(user.name) \(disabled ? "disabled" : "enabled"), \(ended.count) sessions ended on every server"
            guard disabled, let position else { return said }
            return said + "; " + (try confirmations(on: listener, of: position, me: me)).sentence
        }
    }

    /// Tells the SQLite server `server` and waits for its answer; says how it went.
    private static func tellAndWait(_ server: pid_t) -> String {
        ProcessSetup.block(confirmationSignal)
        let giveUp = MonotonicClock.after(seconds: confirmationTime)
        // Told again each second: two commands' signals at once come as one.
        while MonotonicClock.now < giveUp {
            guard kill(server, SIGUSR1) == 0 else { return "the server (process \(server)) could not be told: \(String(cString: strerror(errno)))" }
            if ProcessSetup.waitFor(confirmationSignal, seconds: 1) { return "confirmed by the server (process \(server))" }
        }
        return "the server (process \(server)) did not confirm within \(Int(confirmationTime)) s"
    }

    /// A SQLite server's answer to the command that sent SIGUSR1, when it is
    /// one: any other sender (a shell's `kill`, long gone) is not signalled.
    public static func confirm(to sender: pid_t) {
        guard sender > 0, let name = SmallFile.read("/proc/\(sender)/comm"),
              String(decoding: name, as: UTF8.self).hasPrefix("tailor") else { return }
        kill(sender, confirmationSignal)
    }

    /// Listens on `listener` until every server heard has followed the feed
    /// through `position`, giving the roll call `rollCallTime` to be
    /// answered, for `confirmationTime` at most.
    private static func confirmations(on listener: PostgresConnection, of position: Int, me: String) throws -> DisableConfirmations {
        var confirmations = DisableConfirmations(position: position, me: me)
        let answered = MonotonicClock.after(seconds: rollCallTime), giveUp = MonotonicClock.after(seconds: confirmationTime)
        while true {
            for payload in try listener.takeNotifications() { confirmations.heard(payload) }
            let now = MonotonicClock.now
            if (now >= answered && confirmations.waitingFor.isEmpty) || now >= giveUp { return confirmations }
            let next = now < answered ? answered : giveUp
            var socket = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&socket, 1, Int32(max(1, (next - now) / 1_000_000)))
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
