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
    /// An fd held open to be given up when the process has no other: see
    /// `outOfDescriptors`. Loops shed one at a time under the lock.
    private let reserveFD = Mutex<Int32>(-1)
    private let stopped = Atomic<Bool>(false)
    /// Told (with errno) each time accepting stops for want of descriptors.
    private let onExhausted: @Sendable (Int32) -> Void

    /// How long a loop stops watching the socket after running out of
    /// descriptors: long enough that it does not spin, short enough that
    /// accepting resumes soon after connections close.
    static let exhaustionPause: Duration = .milliseconds(100)

    /// Binds and listens; `port` 0 lets the kernel choose (see `port`).
    public init(host: String, port: Int, backlog: Int = 4096, onExhausted: @escaping @Sendable (Int32) -> Void = { _ in }) throws {
        var bound: Int32 = 0
        let fd = csystem_listen_tcp(host, Int32(port), Int32(backlog), 0, &bound)
        guard fd >= 0 else { throw SystemError("listen on \(host):\(port)") }
        self.fd = fd
        self.port = Int(bound)
        self.host = host
        self.onExhausted = onExhausted
        reserveFD.withLock { $0 = open("/dev/null", O_RDONLY | O_CLOEXEC) }
    }

    /// Starts accepting on every loop; `accept` runs on the accepting loop's thread
    /// with the new non-blocking socket, which it now owns.
    public func start(on group: EventLoopGroup, accept: @escaping @Sendable (Int32, PeerAddress, EventLoop) -> Void) throws {
        let failure = Mutex<SystemError?>(nil)
        group.executeOnEachAndWait { loop in
            do {
                try self.watch(ListenerWatcher(fd: self.fd, listener: self, loop: loop, accept: accept))
            } catch {
                failure.withLock { $0 = error as? SystemError }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Stops accepting and closes the socket; connections already accepted go on.
    public func stop(on group: EventLoopGroup) {
        stopped.store(true, ordering: .relaxed)
        group.executeOnEachAndWait { loop in
            _ = csystem_epoll_remove(loop.epoll, self.fd)
            loop.forget(fd: self.fd)
        }
        close(fd)
        reserveFD.withLock { reserve in
            if reserve >= 0 { close(reserve) }
            reserve = -1
        }
    }

    private func watch(_ watcher: ListenerWatcher) throws {
        try watcher.loop.register(watcher, options: Int32(CSYSTEM_WATCH_EXCLUSIVE), timed: false)
    }

    /// Out of file descriptors, a level-triggered listener would report the same
    /// pending connection forever and its loop would spin. So: give up the
    /// reserved fd to accept the waiting connection and close it at once (the
    /// client hears a close instead of hanging), and stop watching the socket
    /// on this loop for `exhaustionPause`, so that the loop serves the
    /// connections it has instead of spinning.
    fileprivate func outOfDescriptors(_ code: Int32, watcher: ListenerWatcher) {
        reserveFD.withLock { reserve in
            guard reserve >= 0 else { return }
            close(reserve)
            let accepted = csystem_accept(fd, nil)
            if accepted >= 0 { close(accepted) }
            reserve = open("/dev/null", O_RDONLY | O_CLOEXEC)
        }
        onExhausted(code)
        let loop = watcher.loop
        _ = csystem_epoll_remove(loop.epoll, fd)
        loop.forget(fd: fd)
        Task(executorPreference: loop) {
            try? await Task.sleep(for: Self.exhaustionPause)
            // `stop` runs on each loop too, so it comes wholly before or after this.
            guard !self.stopped.load(ordering: .relaxed) else { return }
            do {
                try self.watch(watcher)
            } catch {
                self.onExhausted(csystem_errno())
            }
        }
    }
}

/// One loop's registration of the shared listening socket.
private final class ListenerWatcher: Selectable, Sendable {
    let fd: Int32
    let listener: SocketListener
    let loop: EventLoop
    let accept: @Sendable (Int32, PeerAddress, EventLoop) -> Void
    var deadline: UInt64 { 0 }

    init(fd: Int32, listener: SocketListener, loop: EventLoop, accept: @escaping @Sendable (Int32, PeerAddress, EventLoop) -> Void) {
        self.fd = fd
        self.listener = listener
        self.loop = loop
        self.accept = accept
    }

    /// Accepts one connection per wake-up. The socket is watched
    /// level-triggered, so while more connections wait the loop's next wait
    /// reports it again, beside the established connections' events: they get
    /// their turn between accepts, and no call is spent learning that the queue
    /// is empty (accepting until `EAGAIN` made that failing call once per
    /// wake-up, about a tenth of a closed connection's cost).
    func ready(flags: UInt32) {
        var peer: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        while true {
            let accepted = withUnsafeMutableBytes(of: &peer) { csystem_accept(fd, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
            if accepted >= 0 {
                accept(accepted, PeerAddress(peer), loop)
                return
            }
            let code = csystem_errno()
            switch code {
            case EINTR, ECONNABORTED, EPROTO: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: listener.outOfDescriptors(code, watcher: self); return
            default: return  // EAGAIN: another loop took it
            }
        }
    }

    func deadlinePassed() {}
}
