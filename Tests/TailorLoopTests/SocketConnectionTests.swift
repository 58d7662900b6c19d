import Glibc
import Synchronization
import TailorLoop
import TailorTestSupport
import Testing

/// Reading an accepted connection: a short read waits for the next edge,
/// except once the peer has closed its side.
@Suite struct SocketConnectionTests {
    /// What the server side of one connection read, in order: byte counts,
    /// 0 for the end, -1 for a read that failed (a deadline that passed).
    private final class Reads: Sendable {
        let counts = Mutex<[Int]>([])
        func add(_ count: Int) { counts.withLock { $0.append(count) } }
        /// Waits up to five seconds for `count` reads.
        func wait(for count: Int) -> [Int] {
            _ = eventually { counts.withLock { $0.count } >= count }
            return counts.withLock { $0 }
        }
    }

    /// Runs `body` with a client socket connected to a listener whose accepted
    /// connection is read `reads` times by a task on its loop, after `pause`
    /// (so that the loop has taken the socket's first readiness report before
    /// the first read); each read has a deadline of two seconds.
    private static func withConnection(reads: Int, after pause: Duration, _ body: (_ client: Int32, _ reads: Reads) throws -> Void) throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let listener = try SocketListener(host: "127.0.0.1", port: 0)
        defer { listener.stop(on: group) }
        let record = Reads()
        try listener.start(on: group) { fd, _, loop in
            guard let connection = try? loop.adopt(fd: fd) else { return record.add(-2) }
            Task(executorPreference: loop) {
                // A reader that starts late, when asked to: the bytes wait in the socket meanwhile.
                try? await Task.sleep(for: pause)
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
                defer { buffer.deallocate() }
                for _ in 0..<reads {
                    connection.deadline = MonotonicClock.after(seconds: 2)
                    do {
                        record.add(try await connection.read(into: buffer))
                    } catch {
                        record.add(-1)
                    }
                }
                connection.close()
            }
        }
        let client = try #require(LoopbackClient.connect(port: listener.port))
        defer { close(client) }
        try body(client, record)
    }

    private static func send(_ text: String, on socket: Int32) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(socket, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    @Test func bytesAfterAShortReadAreReadOnTheirEdge() throws {
        try Self.withConnection(reads: 3, after: .zero) { client, reads in
            Self.send("first", on: client)
            #expect(reads.wait(for: 1) == [5])
            // The first read was short: the second waits for these bytes' edge.
            // Sleeps: the second read must be waiting when they come, which no event tells.
            usleep(50_000)
            Self.send("second", on: client)
            #expect(reads.wait(for: 2) == [5, 6])
            shutdown(client, Int32(SHUT_WR))
            #expect(reads.wait(for: 3) == [5, 6, 0])
        }
    }

    /// Bytes and the peer's end arrive together, and the loop takes the report
    /// of both before the first read: that read is short, and no edge is left
    /// to come, so the next read must go on to find the end.
    @Test func theEndAfterAShortReadIsReadWithoutAnotherEdge() throws {
        try Self.withConnection(reads: 2, after: .milliseconds(200)) { client, reads in
            Self.send("last words", on: client)
            shutdown(client, Int32(SHUT_WR))
            #expect(reads.wait(for: 2) == [10, 0])
        }
    }
}
