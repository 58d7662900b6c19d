import Foundation
import Logging
import Synchronization
import TailorBus
import TailorTestSupport
import Testing

/// The bus alone, on a NATS server of the test's own: what `close` promises
/// about the client's threads, which call the bus's callbacks.
@Suite struct NatsBusTests {
    private static func connected(to nats: NatsServer, as name: String) throws -> NatsBus {
        let bus = try NatsBus(urls: [nats.url], name: name, logger: Logger(label: name))
        #expect(eventually { bus.isConnected }, "\(name) did not connect")
        return bus
    }

    /// NATS's client calls a handler from its own thread, and may still be
    /// inside it when the subscription is ended: `close` waits for it, so
    /// nothing the handler holds is let go under it.
    @Test func closeReturnsOnlyAfterAHandlerStillRunningHasReturned() throws {
        let nats = try NatsServer()
        let (bus, publisher) = (try Self.connected(to: nats, as: "listener"), try Self.connected(to: nats, as: "publisher"))
        defer { publisher.close() }
        let (entered, proceed, closed) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let handler = Handler()
        try bus.subscribe(to: "test.close") { _ in
            guard handler.calls.add(1, ordering: .relaxed).newValue == 1 else { return }
            entered.signal()
            proceed.wait()
            handler.returned.store(true, ordering: .relaxed)
        }
        // The subscription reaches the NATS server a moment after it is made: published until it is heard.
        #expect(eventually(timeout: 20, interval: 0.05) {
            publisher.publish("hello", to: "test.close")
            return entered.wait(timeout: .now()) == .success
        }, "the handler was never called")

        let closing = Thread { bus.close(); closed.signal() }
        closing.start()
        // Nothing-happens wait: close must not return while the handler runs.
        #expect(closed.wait(timeout: .now() + 1) == .timedOut, "close returned while a handler was still running")
        proceed.signal()
        #expect(closed.wait(timeout: .now() + 20) == .success, "close did not return once the handler had")
        let returned = handler.returned.load(ordering: .relaxed)
        #expect(returned)
    }

    /// A server may start before its bus: the bus is made at once and
    /// connects once NATS answers, and a bus never reached closes at once.
    @Test func aBusNotYetUpIsConnectedToInTheBackground() throws {
        let nats = try NatsServer()
        nats.stop()
        let (made, url) = (Made(), nats.url)
        Thread {
            made.bus.withLock { $0 = Result { () throws(BusError) in try NatsBus(urls: [url], name: "early", logger: Logger(label: "early")) } }
            made.done.signal()
        }.start()
        #expect(made.done.wait(timeout: .now() + 20) == .success, "making a bus blocked until NATS answered")
        let early = try #require(made.bus.withLock { $0 }).get()
        #expect(!early.isConnected)
        try nats.start()
        #expect(eventually { early.isConnected }, "the bus did not connect once NATS answered")
        early.close()

        nats.stop()
        let never = try NatsBus(urls: [url], name: "never", logger: Logger(label: "never"))
        try never.subscribe(to: "test.never") { _ in }
        let closed = DispatchSemaphore(value: 0)
        Thread { never.close(); closed.signal() }.start()
        #expect(closed.wait(timeout: .now() + 20) == .success, "a bus never connected did not close")
    }

    /// A bus made on another thread, and when it was.
    private final class Made: Sendable {
        let bus = Mutex<Result<NatsBus, BusError>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// What the handler saw, from the client's thread.
    private final class Handler: Sendable {
        let calls = Atomic<Int>(0)
        let returned = Atomic<Bool>(false)
    }
}
