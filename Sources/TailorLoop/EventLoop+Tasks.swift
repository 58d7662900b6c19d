import CSystem
import Dispatch
import Glibc
import Synchronization

extension EventLoop {
    /// Runs `body` on this loop's thread, soon, after the work queued before it.
    /// It runs outside any task: a task it starts does not run on this loop
    /// unless it asks to (`Task(executorPreference:)`).
    public func execute(_ body: @escaping @Sendable () -> Void) {
        enqueue(.closure(body))
    }

    /// Runs `body` on this loop's thread once `seconds` have passed: the
    /// server's timers are the loops' own (`LoopTimers`), kept by the loop's
    /// thread and waited for in its `epoll_wait`, so that one fires even when
    /// the shared pool of tasks is busy, and wakes no other thread.
    public func after(seconds: Double, _ body: @escaping @Sendable () -> Void) {
        addTimer(due: MonotonicClock.after(seconds: seconds), body)
    }

    /// Suspends the calling task until `due` (MonotonicClock), on this loop's
    /// timers; it resumes on its own executor (this loop, for a task that
    /// prefers it). Throws `CancellationError` at once when the task is
    /// cancelled, as `Task.sleep` does.
    public func sleep(until due: UInt64) async throws {
        let sleep = LoopSleep()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard sleep.begin(continuation) else { return }
                addTimer(due: due) { sleep.end(cancelled: false) }
            }
        } onCancel: {
            sleep.end(cancelled: true)
        }
    }

    /// `sleep(until:)` `duration` from now.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: MonotonicClock.after(duration))
    }

    /// Runs `body` on this loop's thread and waits for it; for start and stop
    /// from another thread, never from a loop thread.
    public func executeAndWait(_ body: @escaping @Sendable () -> Void) {
        precondition(!inLoopThread, "executeAndWait would wait for itself")
        let done = DispatchSemaphore(value: 0)
        execute {
            body()
            done.signal()
        }
        done.wait()
    }

    /// Connects to `host:port` and takes the socket into this loop. Call on the
    /// loop's thread; the connect itself blocks briefly (meant for loopback clients).
    /// `source` is the local IPv4 address to connect from, when one is needed.
    public func connect(host: String, port: Int, from source: String? = nil) throws -> SocketConnection {
        let fd = source.map { csystem_connect_tcp(host, Int32(port), $0) } ?? csystem_connect_tcp(host, Int32(port), nil)
        guard fd >= 0 else { throw SystemError("connect to \(host):\(port)") }
        // An accepted socket has it from its listener (`SocketListener`).
        _ = csystem_set_nodelay(fd)
        return try SocketConnection(fd: fd, loop: self)
    }

    /// Takes an accepted socket into this loop. Call on the loop's thread.
    public func adopt(fd: Int32) throws -> SocketConnection {
        try SocketConnection(fd: fd, loop: self)
    }

    /// Takes a socket another loop let go of into this one. Call on the
    /// loop's thread. When this loop cannot watch it, nobody owns it: it is
    /// closed (its close handler called) and the error thrown.
    public func adopt(_ detached: DetachedSocket) throws -> SocketConnection {
        do {
            let socket = try SocketConnection(fd: detached.fd, loop: self)
            socket.closeHandler = detached.closeHandler
            return socket
        } catch {
            Glibc.close(detached.fd)
            detached.closeHandler?()
            throw error
        }
    }
}

/// One task's sleep on a loop's timers: resumed once, by its timer or by its
/// cancellation, whichever comes first; a timer that comes after the
/// cancellation finds it ended and does nothing.
private final class LoopSleep: Sendable {
    private enum State {
        case notBegun
        case sleeping(CheckedContinuation<Void, any Error>)
        /// Cancelled before the continuation was handed over.
        case cancelled
        case ended
    }

    private let state = Mutex(State.notBegun)

    /// Takes the continuation to resume; false when the task was cancelled
    /// first: it is resumed at once, and no timer is needed.
    func begin(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
        let cancelled = state.withLock { state in
            guard case .notBegun = state else { return true }
            state = .sleeping(continuation)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    func end(cancelled: Bool) {
        let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
            switch state {
            case .sleeping(let continuation):
                state = .ended
                return continuation
            case .notBegun:
                if cancelled { state = .cancelled }
                return nil
            case .cancelled, .ended:
                return nil
            }
        }
        if cancelled { continuation?.resume(throwing: CancellationError()) } else { continuation?.resume() }
    }
}
