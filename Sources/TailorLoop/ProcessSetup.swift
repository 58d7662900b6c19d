import CSystem

/// What a server process sets up once, before it starts its loops.
public enum ProcessSetup {
    /// Raises the open-files limit to the hard limit (each connection is a file),
    /// ignores SIGPIPE (a write to a closed peer is an `EPIPE`, not a crash), and
    /// blocks SIGINT, SIGTERM, SIGHUP and SIGUSR1 so that only `waitForControlSignal` receives them.
    /// Sets the allocator to give large freed blocks back to the system.
    /// Returns the open-files limit now in force.
    @discardableResult
    public static func prepareServerProcess() -> Int {
        csystem_tune_allocator()
        csystem_ignore_sigpipe()
        _ = csystem_block_control_signals()
        return csystem_raise_open_files_limit()
    }

    /// Blocks the calling thread until SIGINT, SIGTERM, SIGHUP or SIGUSR1
    /// arrives: its number, and the process that sent it (0 when none did).
    public static func waitForControlSignal() -> (signal: Int32, sender: Int32) {
        var sender: Int32 = 0
        let signal = csystem_wait_control_signal(&sender)
        return (signal, sender)
    }

    /// Blocks `signal` in this thread and the threads it starts later, so
    /// that `waitFor` takes it rather than its default action.
    public static func block(_ signal: Int32) {
        _ = csystem_block_signal(signal)
    }

    /// Waits at most `seconds` for `signal`, blocked beforehand; whether it came.
    public static func waitFor(_ signal: Int32, seconds: Double) -> Bool {
        csystem_wait_for_signal(signal, seconds) == 1
    }

    /// Gives free heap memory back to the system, after a burst of frees.
    public static func releaseFreeMemory() {
        csystem_release_free_memory()
    }

    /// The CPUs this process may run on; `taskset` narrows it.
    public static var usableCPUCount: Int { Int(csystem_usable_cpu_count()) }
}
