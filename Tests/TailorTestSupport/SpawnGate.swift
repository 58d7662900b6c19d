import Foundation
import Synchronization

/// Foundation's `Process.run()` on Linux (up to at least Swift 6.3.1) copies
/// each entry of `/proc/self/fd` with a fixed-size read that can run past the
/// end of glibc's directory buffer once the buffer is full, that is with more
/// than about 1,300 descriptors open, and stop the whole test process. The
/// one test that holds that many holds this gate meanwhile, and every test
/// that starts a process starts it through the gate.
public enum SpawnGate {
    private static let gate = Mutex(())

    /// Starts `process` once no test holds many descriptors.
    public static func run(_ process: Process) throws {
        try gate.withLock { _ in try process.run() }
    }

    /// Runs `body`, which opens many descriptors, while no process starts.
    public static func holdingManyDescriptors<Result>(_ body: () throws -> Result) throws -> Result {
        try gate.withLock { _ in try body() }
    }
}
