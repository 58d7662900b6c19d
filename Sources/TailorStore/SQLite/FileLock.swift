import Glibc
import Synchronization

/// An exclusive lock on a database file for as long as one server uses it.
///
/// Two servers on one SQLite file would each keep their own view caches and
/// streams, and neither would hear of the other's writes: the second one is
/// refused at start instead. The lock is `flock`'s, which SQLite does not use
/// (it locks byte ranges with `fcntl`), so the two never meet; the descriptor
/// stays open until the server stops, because closing it ends the lock.
final class FileLock: Sendable {
    /// Nil once released: closing a descriptor twice would close whatever
    /// file or socket has its number by then.
    private let descriptor: Mutex<Int32?>

    /// Locks `path`, or throws `DatabaseInUse` when another process holds it.
    init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError(call: "open \(path)", errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw DatabaseInUse(database: path) }
            throw FileSystemError(call: "flock \(path)", errno: code)
        }
        self.descriptor = Mutex(descriptor)
    }

    /// Ends the lock; again, it does nothing.
    func release() {
        if let descriptor = descriptor.withLock({ $0.take() }) { close(descriptor) }
    }
}

/// A call on the file system that failed, with its errno.
public struct FileSystemError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let errno: Int32

    public var description: String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}
