import CSystem
import Glibc

/// A thread of the server's own with a name that `top -H` and
/// `/proc/PID/task/*/comm` show, for a stage that runs as long as the server:
/// a libdispatch worker would be anonymous, and borrowed from a shared pool.
public final class OwnThread: Sendable {
    private let handle: pthread_t

    /// Starts `body` on a new thread named `name` (its first 15 bytes).
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Start {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            _ = csystem_set_thread_name(start.name)
            start.body()
            return nil
        }, start.toOpaque())
        precondition(status == 0, "pthread_create failed: \(status)")
        handle = thread
    }

    /// Waits for the thread's body to return.
    public func join() {
        pthread_join(handle, nil)
    }

    /// Lets the thread end on its own, its resources freed as it does, for a
    /// thread that no one joins.
    public func detach() {
        pthread_detach(handle)
    }
}
