import Glibc

/// CPU time and memory of a process, read from /proc (Linux).
struct ProcessProbe: Sendable {
    let pid: Int32

    static var current: ProcessProbe { ProcessProbe(pid: getpid()) }

    /// User plus system CPU time so far, in seconds.
    var cpuSeconds: Double {
        let time = cpuTime
        return time.user + time.system
    }

    /// CPU time so far in user space and in the kernel, in seconds.
    var cpuTime: (user: Double, system: Double) {
        // Fields 14 and 15 of /proc/PID/stat, counted after the command's closing
        // parenthesis (the command itself may hold spaces).
        guard let text = Self.read("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return (0, 0) }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return (0, 0) }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user / ticks, system / ticks)
    }

    /// Resident memory now (`VmRSS`) and at its peak (`VmHWM`), in KiB.
    var residentKiB: (now: Int, peak: Int) {
        guard let text = Self.read("/proc/\(pid)/status") else { return (0, 0) }
        func value(_ name: String) -> Int {
            for line in text.split(separator: "\n") where line.hasPrefix(name) {
                return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
            }
            return 0
        }
        return (value("VmRSS:"), value("VmHWM:"))
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? String(decoding: bytes[0..<count], as: UTF8.self) : nil
    }
}
