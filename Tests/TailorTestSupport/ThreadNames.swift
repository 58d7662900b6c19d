import Glibc
import TailorLoop

/// The names of this process's threads, as `/proc` shows them.
public enum ThreadNames {
    /// Threads of this process with `name`, from /proc.
    public static func threads(named name: String) -> Int {
        guard let tasks = FolderNames.names(in: "/proc/self/task") else { return -1 }
        return tasks.filter { Int($0) != nil && comm(of: "/proc/self/task/\($0)/comm") == name }.count
    }

    /// The calling thread's name.
    public static var current: String { comm(of: "/proc/thread-self/comm") }

    /// A thread's name, from its `comm` file.
    public static func comm(of path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 32)
        guard fgets(&line, 32, file) != nil else { return "" }
        return String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
