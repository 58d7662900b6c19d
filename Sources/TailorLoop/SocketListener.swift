import CSystem
import Glibc
import Synchronization

/// A listening TCP socket shared by every loop of a group.
///
/// Each loop watches the one socket level-triggered with `EPOLLEXCLUSIVE`, so a
/// new connection wakes one idle loop rather than all of them, and a busy loop
/// leaves the connection to a loop that is free. The accepted socket belongs to
/// the loop that accepted it.
public final class SocketListener: Sendable {
    public let port: Int
    public let host: String
    private let fd: Int32
    private let reserveFD = Atomic<Int32>(-1)

    /// Binds and listens; `port` 0 lets the kernel choose (see `port`).
    public init(host: String, port: Int, backlog: Int = 4096) throws {
        var bound: Int32 = 0
        let fd = csystem_listen_tcp(host, Int32(port), Int32(backlog), 0, &bound)
        guard fd >= 0 else { throw SystemError("listen on \(host):\(port)") }
        self.fd = fd
        self.port = Int(bound)
        self.host = host
        reserveFD.store(open("/dev/null", O_RDONLY | O_CLOEXEC), ordering: .relaxed)
    }

    /// Starts accepting on every loop; `accept` runs on the accepting loop's thread
    /// with the new non-blocking socket, which it now owns.
    public func start(on group: EventLoopGroup, accept: @escaping @Sendable (Int32, EventLoop) -> Void) throws {
        let failure = Mutex<SystemError?>(nil)
        group.executeOnEachAndWait { loop in
            do {
                let watcher = ListenerWatcher(fd: self.fd, listener: self, loop: loop, accept: accept)
                try loop.register(watcher, options: Int32(CSYSTEM_WATCH_EXCLUSIVE), timed: false)
            } catch {
                failure.withLock { $0 = error as? SystemError }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Stops accepting and closes the socket; connections already accepted go on.
    public func stop(on group: EventLoopGroup) {
        group.executeOnEachAndWait { loop in
            _ = csystem_epoll_remove(loop.epoll, self.fd)
            loop.forget(fd: self.fd)
        }
        close(fd)
        let reserve = reserveFD.exchange(-1, ordering: .relaxed)
        if reserve >= 0 { close(reserve) }
    }

    /// Out of file descriptors, a level-triggered listener would report the same
    /// pending connection forever. Giving up a reserved fd lets us accept it and
    /// close it at once, so the client hears a close instead of hanging.
    fileprivate func shedOneConnection() {
        let reserve = reserveFD.exchange(-1, ordering: .relaxed)
        guard reserve >= 0 else { return }
        close(reserve)
        let accepted = csystem_accept(fd)
        if accepted >= 0 { close(accepted) }
        reserveFD.store(open("/dev/null", O_RDONLY | O_CLOEXEC), ordering: .relaxed)
    }
}

/// One loop's registration of the shared listening socket.
private final class ListenerWatcher: Selectable {
    let fd: Int32
    let listener: SocketListener
    let loop: EventLoop
    let accept: @Sendable (Int32, EventLoop) -> Void
    var deadline: UInt64 { 0 }

    /// Bounds one wake-up's accepts so established connections get their turn.
    static let acceptsPerWakeUp = 64

    init(fd: Int32, listener: SocketListener, loop: EventLoop, accept: @escaping @Sendable (Int32, EventLoop) -> Void) {
        self.fd = fd
        self.listener = listener
        self.loop = loop
        self.accept = accept
    }

    func ready(flags: UInt32) {
        for _ in 0..<Self.acceptsPerWakeUp {
            let accepted = csystem_accept(fd)
            if accepted >= 0 {
                accept(accepted, loop)
                continue
            }
            switch csystem_errno() {
            case EINTR, ECONNABORTED, EPROTO: continue
            case EMFILE, ENFILE: listener.shedOneConnection(); return
            default: return  // EAGAIN: another loop took it, or nothing left
            }
        }
    }

    func deadlinePassed() {}
}
