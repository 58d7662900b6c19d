import Foundation
import Glibc
import TailorTestSupport
import Testing

/// Many streams at once on one server, from this test process: two thousand
/// descriptors open in it.
@Suite struct ManyStreamsTests {
    @Test func aThousandStreamsOpenedAndClosedLeaveNoSubscriber() throws {
        // Two thousand descriptors in this process: no process may start meanwhile (`SpawnGate`).
        try SpawnGate.holdingManyDescriptors { try thousandStreamsOpenedAndClosed() }
    }

    private func thousandStreamsOpenedAndClosed() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        // All from 127.0.0.1: past the default limit per client address.
        let app = try TestApp { $0.server.maxConnectionsPerAddress = 0 }
        let alice = try app.user("alice")
        var streams: [SSEClient] = []
        for index in 0..<1000 {
            // Opened while the rest of the suite runs on the same two cores: a
            // stream's first answer may wait its turn for longer than usual.
            let stream = try SSEClient(port: app.port, token: alice.token, topics: index % 2 == 0 ? "badge" : "chats,orders", timeout: 30)
            // A refusal would otherwise show only as a stream that ended.
            try #require(stream.response.status == 200, "stream \(index) of 1000 was answered \(stream.response.status)")
            _ = try stream.next()
            streams.append(stream)
        }
        #expect(app.application.streamCount == 1000)
        for (index, stream) in streams.enumerated() {
            if index % 2 == 0 { stream.connection.reset() } else { shutdown(stream.connection.fd, Int32(SHUT_RDWR)) }
        }
        streams.removeAll()
        // Alice's client stays.
        #expect(app.waitForConnections(atMost: 1, timeout: 10))
        #expect(app.application.streamCount == 0)
        #expect(app.application.queuedStreamEvents == 0)
    }
}
