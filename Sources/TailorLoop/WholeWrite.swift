import Glibc

/// Writing all of a buffer to a file or pipe that blocks (a log, standard
/// error), as one `write` when the kernel takes it whole: a write cut short or
/// interrupted goes on with the rest.
public enum WholeWrite {
    /// Whether every byte was written; false when the rest cannot be (a full
    /// disk, a closed pipe), and what was not written is lost.
    @discardableResult
    public static func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
