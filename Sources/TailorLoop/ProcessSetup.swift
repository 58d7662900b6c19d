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

    /// Blocks the calling thread until SIGINT, SIGTERM, SIGHUP or SIGUSR1 arrives; its number.
    public static func waitForControlSignal() -> Int32 {
        csystem_wait_control_signal()
    }

    /// Gives free heap memory back to the system, after a burst of frees.
    public static func releaseFreeMemory() {
        csystem_release_free_memory()
    }

    /// The CPUs this process may run on; `taskset` narrows it.
    public static var usableCPUCount: Int { Int(csystem_usable_cpu_count()) }
}
