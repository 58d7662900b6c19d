import Glibc

/// CPU time, memory and open files of a process, read from /proc (Linux):
/// the server's own for its metrics, another's for the load client's report.
public struct ProcessProbe: Sendable {
    public let pid: Int32

    public init(pid: Int32) {
        self.pid = pid
    }

    public static var current: ProcessProbe { ProcessProbe(pid: getpid()) }

    /// User plus system CPU time so far, in seconds.
    public var cpuSeconds: Double {
        let time = cpuTime
        return time.user + time.system
    }

    /// CPU time so far in user space and in the kernel, in seconds.
    public var cpuTime: (user: Double, system: Double) {
        Self.statistics(at: "/proc/\(pid)/stat")?.cpu ?? (0, 0)
    }

    /// CPU seconds so far of the process's threads that still run, added up
    /// by name: a stage on a named thread of its own (`writer`, `loop-0`)
    /// shows alone, anonymous workers together under the process's name.
    public var threadCPUSeconds: [String: Double] {
        var seconds: [String: Double] = [:]
        for task in FolderNames.names(in: "/proc/\(pid)/task") ?? [] {
            guard let id = Int(task), let thread = Self.statistics(at: "/proc/\(pid)/task/\(id)/stat") else { continue }
            seconds[thread.name, default: 0] += thread.cpu.user + thread.cpu.system
        }
        return seconds
    }

    /// Times a thread gave up its core: waiting (a hand-off between two
    /// threads costs one at least) or pre-empted.
    public struct ContextSwitches: Sendable {
        public var voluntary = 0
        public var forced = 0

        public init() {}

        public var total: Int { voluntary + forced }
    }

    /// The context switches so far of the process's threads that still run,
    /// added up by name as `threadCPUSeconds` adds their time.
    public var threadContextSwitches: [String: ContextSwitches] {
        var switches: [String: ContextSwitches] = [:]
        for task in FolderNames.names(in: "/proc/\(pid)/task") ?? [] {
            guard let id = Int(task), let text = Self.read("/proc/\(pid)/task/\(id)/status") else { continue }
            var name = ""
            var counted = ContextSwitches()
            for line in text.split(separator: "\n") {
                let value = line.split(separator: "\t").last.map(String.init) ?? ""
                if line.hasPrefix("Name:") { name = value }
                if line.hasPrefix("voluntary_ctxt_switches:") { counted.voluntary = Int(value) ?? 0 }
                if line.hasPrefix("nonvoluntary_ctxt_switches:") { counted.forced = Int(value) ?? 0 }
            }
            switches[name, default: ContextSwitches()].voluntary += counted.voluntary
            switches[name, default: ContextSwitches()].forced += counted.forced
        }
        return switches
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
    public var residentKiB: (now: Int, peak: Int) {
        guard let text = Self.read("/proc/\(pid)/status") else { return (0, 0) }
        func value(_ name: String) -> Int {
            for line in text.split(separator: "\n") where line.hasPrefix(name) {
                return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
            }
            return 0
        }
        return (value("VmRSS:"), value("VmHWM:"))
    }

    /// Descriptors open now: the entries of its `fd` folder (for this
    /// process, less the one the count itself opens).
    public var openFiles: Int {
        guard let count = FolderNames.names(in: "/proc/\(pid)/fd")?.count else { return 0 }
        return pid == getpid() ? max(count - 1, 0) : count
    }

    private static func read(_ path: String) -> String? {
        SmallFile.read(path).flatMap { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) }
    }
}
