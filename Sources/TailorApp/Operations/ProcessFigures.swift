import Glibc
import TailorLoop

/// This process's CPU time, resident memory and open files, read from `/proc`.
enum ProcessFigures {
    struct Snapshot: Sendable {
        var cpuMilliseconds = 0
        var residentBytes = 0
        var openFiles = 0
    }

    static func now() -> Snapshot {
        var snapshot = Snapshot()
        // /proc/self/stat: the fields after the command's closing parenthesis;
        // utime and stime are the 12th and 13th of them, in clock ticks.
        if let stat = SmallFile.read("/proc/self/stat"), let close = stat.lastIndex(of: UInt8(ascii: ")")) {
            let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
            if fields.count > 12, let user = Int(String(decoding: fields[11], as: UTF8.self)),
               let system = Int(String(decoding: fields[12], as: UTF8.self)) {
                snapshot.cpuMilliseconds = (user + system) * 1000 / max(sysconf(Int32(_SC_CLK_TCK)), 1)
            }
        }
        // /proc/self/statm: sizes in pages; the second is the resident set.
        if let statm = SmallFile.read("/proc/self/statm") {
            let fields = statm.split(separator: UInt8(ascii: " "))
            if fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) {
                snapshot.residentBytes = pages * sysconf(Int32(_SC_PAGESIZE))
            }
        }
        snapshot.openFiles = openFiles()
        return snapshot
    }

    /// Entries of /proc/self/fd, less the one this count opens.
    private static func openFiles() -> Int {
        guard let folder = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(folder) }
        var count = 0
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { $0.first }
            if name != UInt8(ascii: ".") { count += 1 }
        }
        return max(count - 1, 0)
    }
}
