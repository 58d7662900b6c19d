import Glibc

/// Reads a small file whole, without knowing its size first: `/proc` files
/// report none, and a time zone file is a few kilobytes.
public enum SmallFile {
    /// The bytes of the file at `path`; nil when it cannot be opened or holds more than `limit`.
    public static func read(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > limit { return nil }
        }
        return bytes
    }
}
