import CSystem
import Dispatch
import Glibc

extension EventLoop {
    /// Runs `body` on this loop's thread, soon, after the work queued before it.
    /// It runs outside any task: a task it starts does not run on this loop
    /// unless it asks to (`Task(executorPreference:)`).
    public func execute(_ body: @escaping @Sendable () -> Void) {
        enqueue(.closure(body))
    }

    /// Runs `body` on this loop's thread once `seconds` have passed: the
    /// server's timers are the loops' (a task that waits on the loop), not
    /// threads of their own.
    public func after(seconds: Double, _ body: @escaping @Sendable () -> Void) {
        Task(executorPreference: self) {
            do {
                try await Task.sleep(for: .nanoseconds(UInt64(max(seconds, 0) * 1e9)))
            } catch {
                // Only a cancelled task stops sleeping early, and nothing holds this one to cancel it.
                return
            }
            body()
        }
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
