import TailorLoop

/// A connection accepted and counted, waiting for a task to serve it.
struct AcceptedConnection: Sendable {
    let socket: SocketConnection
    let peer: PeerAddress
}

/// Tasks of one loop that have served a connection and wait for the next.
///
/// A task made for each connection costs the loop several allocations (the
/// task, its executor preference, and the frames of its async calls, whose
/// memory a new task allocates afresh): on a server whose clients close
/// after each request, that is most of a request's allocations. A task that
/// finishes a connection waits here instead, and the next connection the loop
/// accepts resumes it; with none waiting, a new task is made. Used only on its
/// loop's thread (`ThreadConfined`), so no lock.
final class IdleConnectionTasks {
    private var waiting: [UnsafeContinuation<AcceptedConnection?, Never>] = []
    /// Tasks kept waiting at most: more end, so that a burst of connections
    /// leaves no lasting crowd of idle tasks (each keeps its `ConnectionBuffers`,
    /// about 6 KiB).
    let limit: Int
    private var isStopped = false

    init(limit: Int) {
        self.limit = limit
        waiting.reserveCapacity(limit)
    }

    /// Resumes a waiting task with `connection`; false when none waits.
    func handOver(_ connection: AcceptedConnection) -> Bool {
        guard let task = waiting.popLast() else { return false }
        task.resume(returning: connection)
        return true
    }

    /// The next connection for the calling task to serve, or nil: it should
    /// end (enough tasks wait already, or the server stops).
    func next() async -> AcceptedConnection? {
        guard !isStopped, waiting.count < limit else { return nil }
        return await withUnsafeContinuation { waiting.append($0) }
    }

    /// The server stops: every waiting task ends, and none waits from now on.
    func stop() {
        isStopped = true
        for task in waiting { task.resume(returning: nil) }
        waiting.removeAll()
    }
}
