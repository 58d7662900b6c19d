import Glibc
import Logging
import Synchronization
import TailorHTTP
import TailorLoop
import TailorViews

/// `--access-log`: one JSON line per answered request, to standard output
/// (`-`) or appended to a file: time, request id, method, path (without its
/// query, which may hold what a user searched for), route, status,
/// milliseconds, user id when signed in, and the client's address.
///
/// Lines are made on the loop that answered and written on a thread of their
/// own, so a slow disk never holds a loop.
///
/// A file is reopened on `reopen` (SIGHUP), so that a rotation that moves it
/// (logrotate's default) is followed.
final class AccessLog: Sendable {
    /// The file's path; nil for standard output.
    private let path: String?
    /// Written to on the access log's thread, swapped there by `reopen`, and
    /// closed at the end: one number, read and swapped whole.
    private let descriptor: Atomic<Int32>
    private let thread = SerialThread(name: "access-log")
    private let now: @Sendable () -> Int
    private let logger: Logger

    struct CannotOpen: Error, CustomStringConvertible {
        let path: String
        let code: Int32
        var description: String { "the access log \(path) cannot be opened: \(String(cString: strerror(code)))" }
    }

    /// `path` is a file, created if missing and appended to, or `-` for standard output.
    init(path: String, now: @escaping @Sendable () -> Int, logger: Logger) throws {
        self.now = now
        self.logger = logger
        if path == "-" {
            self.path = nil
            descriptor = Atomic(STDOUT_FILENO)
        } else {
            self.path = path
            descriptor = Atomic(try Self.open(path))
        }
    }

    private static func open(_ path: String) throws(CannotOpen) -> Int32 {
        let descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CannotOpen(path: path, code: errno) }
        return descriptor
    }

    deinit {
        if path != nil { close(descriptor.load(ordering: .acquiring)) }
    }

    /// Opens the file anew after the lines handed over so far; one that cannot
    /// be opened leaves the old one in use, and says so on standard error.
    func reopen() {
        guard let path else { return }
        thread.async { [self] in
            do {
                let fresh = try Self.open(path)
                close(descriptor.exchange(fresh, ordering: .acquiringAndReleasing))
            } catch {
                logger.error("\(error); going on with the file it had")
            }
        }
    }

    func write(_ answered: HTTPResponder.Answered) {
        var bytes = JSONWriter.bytes(of: AccessLogLine(answered, time: now()))
        bytes.append(UInt8(ascii: "\n"))
        let line = bytes
        thread.async { [self] in
            // A full disk or a closed pipe: the line is lost, the server goes on.
            WholeWrite.write(line, to: descriptor.load(ordering: .acquiring))
        }
    }

    /// Waits until every line handed over is written.
    func flush() {
        thread.sync {}
    }
}

/// One line of the access log, its keys sorted like every JSON the server writes.
private struct AccessLogLine: JSONWritable {
    let answered: HTTPResponder.Answered
    let time: Int

    init(_ answered: HTTPResponder.Answered, time: Int) {
        self.answered = answered
        self.time = time
    }

    func write(to json: inout JSONWriter) {
        let request = answered.request
        json.object {
            $0.field("id", request.id)
            $0.field("method", request.method.description)
            $0.key("ms")
            $0.fragment(Array(String(Double(answered.nanoseconds / 1_000) / 1_000).utf8)[...])
            $0.field("path", request.path)
            $0.field("peer", request.client?.text)
            $0.field("route", answered.route)
            $0.field("status", answered.status.code)
            $0.field("time", DateText.iso(time))
            $0.key("user")
            if let user = request.notes?.userID { $0.integer(user) } else { $0.null() }
        }
    }
}
