import Glibc

/// Waits until `condition` holds, looking again every `interval` seconds, for
/// at most `timeout` seconds; whether it held. The one place tests poll: for
/// what no event announces to them (a thread ended, a line reached a file, a
/// counter a server keeps, a process exited), so a test still waits for what
/// it needs, not for a time. The deadline is for a machine busy with other
/// work: a condition that holds ends the wait at once.
public func eventually(timeout: Double = 20, interval: Double = 0.005, _ condition: () throws -> Bool) rethrows -> Bool {
    let giveUp = secondsNow() + timeout
    while true {
        if try condition() { return true }
        if secondsNow() >= giveUp { return false }
        usleep(UInt32(interval * 1_000_000))
    }
}

private func secondsNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
