import Glibc
import Synchronization
import TailorLoop
import TailorTestSupport
import Testing

/// The listening socket and what it hands to the loops.
@Suite struct SocketListenerTests {
    /// Whether Nagle's algorithm is off on `fd`.
    private static func sendsAtOnce(_ fd: Int32) -> Bool {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0 && value != 0
    }

    @Test func anAcceptedSocketSendsWithoutNaglesWait() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let listener = try SocketListener(host: "127.0.0.1", port: 0)
        let accepted = Mutex<Bool?>(nil)
        try listener.start(on: group) { fd, _, _ in
            accepted.withLock { $0 = Self.sendsAtOnce(fd) }
            close(fd)
        }
        defer { listener.stop(on: group) }
        let client = try #require(LoopbackClient.connect(port: listener.port))
        defer { close(client) }
        #expect(eventually { accepted.withLock { $0 } != nil })
        #expect(accepted.withLock { $0 } == true)
    }
}
