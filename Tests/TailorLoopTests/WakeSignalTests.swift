import Glibc
import TailorLoop
import Testing

/// The wake of a thread that polls: signalled from any thread, and harmless
/// after it is closed, when its descriptor's number may be another's.
@Suite(.serialized) struct WakeSignalTests {
    @Test func aSignalEndsAPollAndADrainTakesIt() throws {
        let wake = try WakeSignal()
        var descriptor = pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 0) == 0)
        wake.signal()
        wake.signal()
        #expect(poll(&descriptor, 1, 0) == 1)
        wake.drain()
        #expect(poll(&descriptor, 1, 0) == 0)
    }

    /// Closed, its number goes to the next descriptor opened, here one end
    /// of a pair of sockets: a signal then must send nothing on it, and a
    /// drain take nothing from it. (Other tests open descriptors meanwhile:
    /// the number is taken again until the pair gets it.)
    @Test func aSignalAfterTheCloseTouchesNothingOfTheNumbersNextOwner() throws {
        for _ in 0..<50 {
            let wake = try WakeSignal()
            let number = wake.fd
            wake.close()
            var pair: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            defer { for end in pair { close(end) } }
            guard pair.contains(number) else { continue }
            wake.signal()
            let other = pair[0] == number ? pair[1] : pair[0]
            var byte: UInt8 = 0
            #expect(recv(other, &byte, 1, Int32(MSG_DONTWAIT)) == -1, "a signal after the close reached the socket that took its number")
            _ = send(other, "x", 1, 0)
            wake.drain()
            var pending = pollfd(fd: number, events: Int16(POLLIN), revents: 0)
            #expect(poll(&pending, 1, 0) == 1, "a drain after the close took what the socket received")
            return
        }
        Issue.record("the closed number was never opened again in 50 tries")
    }
}
