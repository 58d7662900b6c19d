import Glibc

/// A response body sent from an open file by the kernel (`sendfile`), in
/// pieces as the socket takes them: a large file is never read into memory,
/// however many clients fetch it at once. Owns the descriptor.
public final class FileBody: Sendable {
    public let fd: Int32
    public let length: Int

    /// Opens `path` for a body of `length` bytes; nil when it cannot be opened.
    init?(path: String, length: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.length = length
    }

    deinit {
        close(fd)
    }
}
