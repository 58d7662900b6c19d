import Glibc

/// Waits until `condition` holds, looking again every `interval` seconds, for
/// at most `timeout` seconds; whether it held. The one place tests poll: for
/// what no event announces to them (a thread ended, a line reached a file, a
/// counter a server keeps, a process exited), so a test still waits for what
/// it needs, not for a time. The deadline is for a machine busy with other
/// work: a condition that holds ends the wait at once.
public func eventually(timeout: Double = 20, interval: Double = 0.005, _ condition: () throws -> Bool) rethrows -> Bool {
    try look(for: timeout, every: interval) { try condition() ? true : nil } ?? false
}

/// Whether `condition` holds each time it is looked at, every `interval`
/// seconds for `seconds`: for what must not happen (a stopped thread that
/// works on, a third job on a pool of two, a second answer from a bot), which
/// only time shows. It ends at the first look that fails.
public func throughout(_ seconds: Double, interval: Double = 0.005, _ condition: () throws -> Bool) rethrows -> Bool {
    try look(for: seconds, every: interval) { try condition() ? nil : false } ?? true
}

/// Looks every `interval` seconds until `decided` says how it ended or
/// `seconds` have passed (nil).
private func look(for seconds: Double, every interval: Double, _ decided: () throws -> Bool?) rethrows -> Bool? {
    let end = secondsNow() + seconds
    while true {
        if let outcome = try decided() { return outcome }
        if secondsNow() >= end { return nil }
        // Sleeps: the one poll's interval, for what no event announces.
        usleep(UInt32(interval * 1_000_000))
    }
}

func secondsNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
