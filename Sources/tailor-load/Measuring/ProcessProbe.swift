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
        Self.statistics(at: "/proc/\(pid)/stat")?.cpu ?? (0, 0)
    }

    /// CPU seconds so far of the process's threads that still run, added up
    /// by name: a stage on a named thread of its own (`writer`, `loop-0`)
    /// shows alone, anonymous workers together under the process's name.
    var threadCPUSeconds: [String: Double] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [:] }
        defer { closedir(directory) }
        var seconds: [String: Double] = [:]
        while let entry = readdir(directory) {
            let task = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let id = Int(task), let thread = Self.statistics(at: "/proc/\(pid)/task/\(id)/stat") else { continue }
            seconds[thread.name, default: 0] += thread.cpu.user + thread.cpu.system
        }
        return seconds
    }

    /// The name and the CPU time of a process or thread, from its stat file.
    private static func statistics(at path: String) -> (name: String, cpu: (user: Double, system: Double))? {
        // The name is between the first '(' and the last ')' (it may hold
        // spaces); CPU times are fields 14 and 15, counted after the ')'.
        guard let text = read(path), let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (String(text[text.index(after: open)..<close]), (user / ticks, system / ticks))
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
