import Glibc

/// The names of the entries of a folder, `.` and `..` left out.
///
/// An entry `readdir` returns is only as long as its name needs
/// (`d_reclen`), not `MemoryLayout<dirent>.size`: copying the whole struct
/// (`entry.pointee`) reads up to 256 bytes past the last entry of the
/// library's buffer, into memory that may not be mapped. The name is read
/// in place instead, up to its NUL.
public enum FolderNames {
    /// The names in `path`, or nil when it cannot be opened as a folder.
    public static func names(in path: String) -> [String]? {
        guard let folder = opendir(path) else { return nil }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Where an entry's name starts: a stored field of a C struct always has one.
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
}
