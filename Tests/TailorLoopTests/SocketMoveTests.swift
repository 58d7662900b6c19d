import Glibc
import Synchronization
import TailorLoop
import TailorTestSupport
import Testing

/// A connection moved from the loop that accepted it to another: the new
/// loop reads and writes it, and hears its peer leave, also when the peer
/// left while no loop watched it.
@Suite struct SocketMoveTests {
    /// What the adopting loop saw, in order.
    private final class Seen: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        func wait(for count: Int) -> [String] {
            _ = eventually { lines.withLock { $0.count } >= count }
            return lines.withLock { $0 }
        }
    }

    /// Accepts one connection on loop 0, moves it to loop 1 (after
    /// `beforeAdopting` has run with the socket watched by neither), and
    /// there reads it to its end, noting each read and which loop ran it;
    /// or, not `reading`, waits to hear that its peer left, as a stream that
    /// only writes does.
    private static func moving(reading: Bool = true, beforeAdopting: @escaping @Sendable () -> Void, _ body: (_ client: Int32, _ seen: Seen) throws -> Void) throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdown() }
        let listener = try SocketListener(host: "127.0.0.1", port: 0)
        defer { listener.stop(on: group) }
        let seen = Seen()
        let target = group.loops[1]
        try listener.start(on: group) { fd, _, loop in
            guard let accepted = try? loop.adopt(fd: fd) else { return seen.add("not accepted") }
            accepted.closeHandler = { seen.add("closed") }
            let detached = accepted.detach()
            beforeAdopting()
            target.execute {
                guard let socket = try? target.adopt(detached) else { return seen.add("not adopted") }
                guard reading else {
                    socket.peerClosedHandler = {
                        seen.add("peer left, heard on loop \(target.inLoopThread ? 1 : 0)")
                        socket.close()
                    }
                    return
                }
                Task(executorPreference: target) {
                    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
                    defer { buffer.deallocate() }
                    socket.deadline = MonotonicClock.after(seconds: 5)
                    while true {
                        let count = (try? await socket.read(into: buffer)) ?? -1
                        seen.add("read \(count) on loop \(target.inLoopThread ? 1 : 0)")
                        if count <= 0 { break }
                        try? await socket.write(SharedBytes("ok"))
                    }
                    socket.close()
                }
            }
        }
        let client = try #require(LoopbackClient.connect(port: listener.port))
        defer { close(client) }
        try body(client, seen)
    }

    @Test func theAdoptingLoopReadsWritesAndClosesIt() throws {
        try Self.moving(beforeAdopting: {}) { client, seen in
            _ = "hello".utf8CString.withUnsafeBufferPointer { send(client, $0.baseAddress, 5, Int32(MSG_NOSIGNAL)) }
            var answer = [UInt8](repeating: 0, count: 2)
            #expect(recv(client, &answer, 2, Int32(MSG_WAITALL)) == 2)
            #expect(answer == Array("ok".utf8))
            shutdown(client, Int32(SHUT_WR))
            #expect(seen.wait(for: 3) == ["read 5 on loop 1", "read 0 on loop 1", "closed"])
        }
    }

    @Test func aPeerThatLeftBetweenTheLoopsIsHeardByTheNewOne() throws {
        let left = Mutex<Int32>(-1)
        let gone = Seen()
        try Self.moving(reading: false, beforeAdopting: {
            // Wait until the client has hung up, while no loop watches the socket.
            _ = eventually { left.withLock { $0 } == 1 }
            gone.add("adopting")
        }) { client, seen in
            shutdown(client, Int32(SHUT_WR))
            left.withLock { $0 = 1 }
            #expect(gone.wait(for: 1) == ["adopting"])
            #expect(seen.wait(for: 2) == ["peer left, heard on loop 1", "closed"])
        }
    }
}
