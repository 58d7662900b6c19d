import CSystem
import Glibc
import Synchronization

/// An eventfd that any thread signals to end one thread's `poll`, closed
/// once that thread is done. A signal after the close does nothing: by then
/// the descriptor's number may be a socket's, and the eight bytes a signal
/// writes would be sent on another connection.
public final class WakeSignal: Sendable {
    private let descriptor: Mutex<Int32?>

    public init() throws {
        let fd = csystem_eventfd()
        guard fd >= 0 else { throw SystemError("eventfd") }
        descriptor = Mutex(fd)
    }

    /// The descriptor to poll, for the waiting thread only, while open.
    public var fd: Int32 { descriptor.withLock { $0 ?? -1 } }

    public func signal() {
        descriptor.withLock { if let fd = $0 { _ = csystem_eventfd_signal(fd) } }
    }

    /// Takes the signals so far, so that the next poll waits.
    public func drain() {
        descriptor.withLock { if let fd = $0 { _ = csystem_eventfd_drain(fd) } }
    }

    /// For the waiting thread: waits until a signal, something to read on
    /// `socket`, or `seconds` passed, and takes the signals; whether a signal
    /// ended the wait.
    @discardableResult
    public func wait(seconds: Double, orReadable socket: Int32? = nil) -> Bool {
        wait(milliseconds: Int32((seconds * 1000).rounded(.up)), orReadable: socket)
    }

    /// For the waiting thread: waits until a signal, however long, and takes
    /// the signals. For a thread with nothing to do but what it is signalled for.
    public func waitForSignal() {
        wait(milliseconds: -1, orReadable: nil)
    }

    /// `milliseconds`: poll's timeout, negative for none.
    @discardableResult
    private func wait(milliseconds: Int32, orReadable socket: Int32?) -> Bool {
        var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        drain()
        return descriptors[0].revents != 0
    }

    /// Closes the descriptor; again, it does nothing.
    public func close() {
        descriptor.withLock { fd in
            if let open = fd { Glibc.close(open) }
            fd = nil
        }
    }

    deinit {
        close()
    }
}
