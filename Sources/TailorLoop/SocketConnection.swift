import CSystem
import Glibc

/// An accepted TCP connection, read and written with `async` calls that suspend
/// only when the socket would block.
///
/// The socket is registered once, edge-triggered, for reads and writes. The loop
/// keeps two flags from the last readiness report; a read or write is attempted
/// while its flag is up and awaits the next edge once the kernel said `EAGAIN`,
/// or once a read came back shorter than asked. A short read of a stream socket
/// took everything queued (epoll(7); the kernel itself takes in packets that
/// wait behind a busy socket before it returns short), and bytes that arrive
/// after it raise a new edge: so a kept-alive request costs one `read`, not a
/// second that finds nothing. The exception is the peer's end: once a report
/// said the peer closed its side, no edge is left to come, so reads go on until
/// one returns the end.
///
/// Confined to its loop: every method must be called on the loop's thread, which
/// is where the connection's task runs. That confinement is why it may be
/// `@unchecked Sendable`: it is handed to the task once and never shared.
public final class SocketConnection: Selectable, @unchecked Sendable {
    public let fd: Int32
    public let loop: EventLoop

    /// Monotonic nanoseconds after which waiting reads and writes fail with
    /// `.timedOut`; 0 for none.
    public var deadline: UInt64 = 0
    /// Set while the owner waits for a new request, so shutdown may close it.
    public var isIdle = false
    /// Called on the loop when the peer hangs up while nobody is reading: a
    /// stream that only writes learns at once that its reader is gone.
    public var peerClosedHandler: (() -> Void)?
    /// Whether a readiness report said the peer hung up. A report that came
    /// while no `peerClosedHandler` was set is not repeated (the socket is
    /// edge-triggered): whoever sets one later asks this first.
    public var peerHasHungUp: Bool { peerClosed }
    /// Called once, on the loop, when the socket is closed: the server counts
    /// its connections here, whoever closes one.
    public var closeHandler: (@Sendable () -> Void)?

    private var readable = true
    /// A readiness report said the peer closed its side: only reading on to
    /// the end (a read of 0) shows it.
    private var peerClosed = false
    private var writable = true
    private var readWaiter: UnsafeContinuation<Void, any Error>?
    private var writeWaiter: WriteWaiter?
    private var isClosed = false

    init(fd: Int32, loop: EventLoop) throws {
        self.fd = fd
        self.loop = loop
        try loop.register(self, options: Int32(CSYSTEM_WATCH_EDGE | CSYSTEM_WATCH_WRITES), timed: true)
    }

    /// Reads what has arrived into `buffer`: the count, or 0 at the end of the stream.
    public func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        assert(loop.inLoopThread, "a connection is read off its loop")
        while true {
            // Closed (also while this read waited), its number may be another connection's by now.
            guard !isClosed else { return 0 }
            if readable {
                let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if count > 0 {
                    if count < buffer.count && !peerClosed { readable = false }
                    return count
                }
                if count == 0 { return 0 }
                let code = csystem_errno()
                switch code {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: readable = false
                case ECONNRESET, ETIMEDOUT: return 0
                default: throw SystemError("read", code: code)
                }
            } else {
                try await withUnsafeThrowingContinuation { readWaiter = $0 }
            }
        }
    }

    /// One read without waiting: the count, 0 at the end of the stream (a
    /// reset is one), or nil when nothing has arrived. Any other failure is
    /// thrown, as `read` throws it: it is a fault, not the peer leaving.
    public func readIfAvailable(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        guard !isClosed else { return 0 }
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let code = csystem_errno()
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: readable = false; return nil
            case ECONNRESET, ETIMEDOUT: return 0
            default: throw SystemError("read", code: code)
            }
        }
    }

    /// Writes every byte the vectors point at, suspending while the socket is full.
    /// The vectors are advanced in place as bytes go out.
    public func write(_ vectors: UnsafeMutableBufferPointer<iovec>) async throws {
        assert(loop.inLoopThread, "a connection is written off its loop")
        var first = 0
        while true {
            first += try writeAvailable(UnsafeMutableBufferPointer(rebasing: vectors[first...]))
            if first == vectors.count { return }
            try await withUnsafeThrowingContinuation { writeWaiter = .task($0) }
        }
    }

    /// Writes as much of the vectors as the socket takes now, without waiting:
    /// the number of leading vectors sent whole. The first one not sent whole is
    /// advanced in place past its sent bytes, so a later `write` goes on from there.
    public func writeAvailable(_ vectors: UnsafeMutableBufferPointer<iovec>) throws -> Int {
        assert(loop.inLoopThread, "a connection is written off its loop")
        // Closed, its number may be another connection's by now.
        guard !isClosed else { throw ConnectionError.peerClosed }
        var first = 0
        var message = msghdr()
        while first < vectors.count, writable {
            // sendmsg is writev with flags: MSG_NOSIGNAL makes a closed peer an
            // EPIPE here rather than a SIGPIPE for the whole process.
            message.msg_iov = vectors.baseAddress! + first
            message.msg_iovlen = min(vectors.count - first, 1024)
            let count = sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            if count < 0 {
                let code = csystem_errno()
                switch code {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: writable = false; continue
                case EPIPE, ECONNRESET, ETIMEDOUT: throw ConnectionError.peerClosed
                default: throw SystemError("sendmsg", code: code)
                }
            }
            var written = count
            while written > 0, first < vectors.count {
                let length = vectors[first].iov_len
                if written >= length {
                    written -= length
                    first += 1
                } else {
                    vectors[first].iov_base += written
                    vectors[first].iov_len -= written
                    written = 0
                }
            }
            while first < vectors.count, vectors[first].iov_len == 0 { first += 1 }
        }
        return first
    }

    /// Sends `count` bytes of the file `file` from `offset` on, by the kernel
    /// and without a copy through memory, suspending while the socket is full.
    /// `onProgress` is called after each piece that went out (to move a deadline).
    public func sendFile(_ file: Int32, offset: Int, count: Int, onProgress: () -> Void) async throws {
        assert(loop.inLoopThread, "a connection is written off its loop")
        var position = off_t(offset)
        let end = offset + count
        while Int(position) < end {
            guard !isClosed else { throw ConnectionError.peerClosed }
            if writable {
                let sent = sendfile(fd, file, &position, min(end - Int(position), 1 << 20))
                if sent > 0 { onProgress(); continue }
                if sent == 0 { throw SystemError("sendfile: the file ended early", code: EIO) }
                let code = csystem_errno()
                switch code {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: writable = false
                case EPIPE, ECONNRESET, ETIMEDOUT: throw ConnectionError.peerClosed
                default: throw SystemError("sendfile", code: code)
                }
            } else {
                try await withUnsafeThrowingContinuation { writeWaiter = .task($0) }
            }
        }
    }

    /// Calls `then` on the loop once the socket has room after a write that
    /// did not go out whole, or with the reason it never will (the deadline
    /// passed, the peer left). For a writer that has no task to suspend.
    public func whenWritable(then: @escaping (Result<Void, ConnectionError>) -> Void) {
        assert(loop.inLoopThread, "a connection is written off its loop")
        precondition(writeWaiter == nil, "a second write waits for room")
        writeWaiter = .callback(then)
    }

    /// Writes `bytes` whole; for the rare small writes outside the response path.
    public func write(_ bytes: SharedBytes) async throws {
        let vector = UnsafeMutableBufferPointer<iovec>.allocate(capacity: 1)
        defer { vector.deallocate() }
        vector[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.bytes.baseAddress), iov_len: bytes.count)
        defer { withExtendedLifetime(bytes) {} }
        try await write(vector)
    }

    /// Makes a waiting read or write fail with `reason`. Only that wait fails: the
    /// owner may still write an answer (a 408 after a timeout) and then close.
    public func interrupt(_ reason: ConnectionError) {
        resumeWaiters(throwing: reason)
    }

    /// Sends a FIN but keeps reading: lets a client read an error response whole
    /// before the connection closes (RFC 9112 §9.6).
    public func shutdownWrites() {
        guard !isClosed else { return }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        // The handlers may hold their owner, which holds this socket.
        peerClosedHandler = nil
        if case .callback = writeWaiter { writeWaiter = nil }
        loop.forget(fd: fd)
        Glibc.close(fd)
        let closed = closeHandler
        closeHandler = nil
        closed?()
    }

    /// Takes the socket off this loop, open, for another loop to adopt
    /// (`EventLoop.adopt(_:)`): from now on this object acts as if closed.
    /// Whatever happens to the socket in between (its peer hangs up) is
    /// reported by the adopting loop's first wait, since epoll reports a
    /// socket's state when it starts watching it. Call on the loop, with
    /// nothing waiting to read or write.
    public func detach() -> DetachedSocket {
        assert(loop.inLoopThread, "a connection is detached off its loop")
        precondition(!isClosed && readWaiter == nil && writeWaiter == nil, "a connection detached while in use")
        isClosed = true
        peerClosedHandler = nil
        _ = csystem_epoll_remove(loop.epoll, fd)
        loop.forget(fd: fd)
        defer { closeHandler = nil }
        return DetachedSocket(fd: fd, closeHandler: closeHandler)
    }

    func ready(flags: UInt32) {
        let readFlags = UInt32(CSYSTEM_READABLE | CSYSTEM_HANGUP | CSYSTEM_ERROR | CSYSTEM_PEER_CLOSED)
        let writeFlags = UInt32(CSYSTEM_WRITABLE | CSYSTEM_HANGUP | CSYSTEM_ERROR)
        if flags & readFlags != 0 {
            readable = true
            if flags & UInt32(CSYSTEM_PEER_CLOSED | CSYSTEM_HANGUP | CSYSTEM_ERROR) != 0 { peerClosed = true }
            if let waiter = readWaiter {
                readWaiter = nil
                waiter.resume()
            } else if flags & UInt32(CSYSTEM_PEER_CLOSED | CSYSTEM_HANGUP | CSYSTEM_ERROR) != 0, let handler = peerClosedHandler {
                peerClosedHandler = nil
                handler()
            }
        }
        if flags & writeFlags != 0 {
            writable = true
            if let waiter = writeWaiter {
                writeWaiter = nil
                waiter.resume(with: .success(()))
            }
        }
    }

    func deadlinePassed() {
        deadline = 0
        interrupt(.timedOut)
    }

    private func resumeWaiters(throwing error: ConnectionError) {
        if let waiter = readWaiter {
            readWaiter = nil
            waiter.resume(throwing: error)
        }
        if let waiter = writeWaiter {
            writeWaiter = nil
            waiter.resume(with: .failure(error))
        }
    }
}

/// An open socket between two loops: taken off one (`SocketConnection.detach`)
/// and watched by none until another adopts it.
public struct DetachedSocket: Sendable {
    let fd: Int32
    /// Called once the socket closes, wherever it is then.
    let closeHandler: (@Sendable () -> Void)?
}

/// Who waits for room in the socket: a task, or a callback of a writer that
/// has none.
private enum WriteWaiter {
    case task(UnsafeContinuation<Void, any Error>)
    case callback((Result<Void, ConnectionError>) -> Void)

    func resume(with result: Result<Void, ConnectionError>) {
        switch self {
        case .task(let continuation): continuation.resume(with: result.mapError { $0 })
        case .callback(let callback): callback(result)
        }
    }
}
