import Glibc
import Synchronization
import TailorLoop

/// Serves the files of one folder (`--public`) and nothing outside it.
///
/// A path is checked segment by segment (no `..`, no hidden names), then resolved
/// with `realpath` and served only if the result is still inside the folder, so
/// neither an encoded `%2e%2e` nor a symlink pointing out escapes. Small files are
/// read once and kept as `CachedRepresentation`s (with ETag and gzip) within a
/// byte budget; a kept file is looked at again (a `stat`) when it was last
/// looked at more than `revalidateAfter` seconds ago, so a changed file is
/// served within that time: a `stat` on every request would cost a small
/// file's answer several percent of its CPU. Larger ones are sent from disk by the kernel, never
/// read into memory.
///
/// A kept file that is fresh is answered on the loop. Looking at the disk
/// (the `stat`, the read, the gzip of what was read) runs on a thread of its
/// own (`files-0`), since a disk that is slow to answer would hold every
/// connection of the loop.
public final class StaticFiles: Sendable {
    public let root: String
    public let budgetBytes: Int
    /// Files larger than this are sent from disk on each request and not kept.
    public let maxCachedFileBytes: Int
    /// Seconds a kept file is served without looking at the disk again.
    public let revalidateAfter: Double
    private let cache = Mutex<Cache>(Cache())
    /// Where the disk is looked at: one thread, as the folder is small and
    /// its files are kept once read.
    private let disk = ThreadPool(name: "files", count: 1)

    private struct Cache {
        var entries: [String: Entry] = [:]
        var bytes = 0
    }

    private struct Entry {
        let identity: FileIdentity
        let representation: CachedRepresentation
        /// When the file was last found to be this version (MonotonicClock).
        var checkedAt: UInt64
    }

    /// What tells one version of a file from another without reading it.
    private struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int
        let modified: Int

        /// A strong tag for this version of the file, without reading it.
        var etag: String {
            "\"f" + String(inode, radix: 16) + "-" + String(size, radix: 16) + "-" + String(modified, radix: 16) + "\""
        }

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        }
    }

    /// nil when `root` is not a folder.
    public init?(root: String, budgetBytes: Int = 8 * 1024 * 1024, maxCachedFileBytes: Int = 1024 * 1024, revalidateAfter: Double = 1) {
        guard let resolved = Self.realPath(root) else { return nil }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        self.root = resolved
        self.budgetBytes = budgetBytes
        self.maxCachedFileBytes = maxCachedFileBytes
        self.revalidateAfter = max(revalidateAfter, 0)
    }

    /// A handler for the router's fallback.
    public var handler: Router.Handler {
        { [self] request in try await self.respond(to: request) }
    }

    public func respond(to request: HTTPRequest) async throws -> HTTPResponse {
        guard let path = Self.canonicalPath(request.path) else { throw HTTPError.notFound() }
        let found = if let kept = freshlyKept(path) { Found.cached(kept) } else { try await disk.run { self.find(path) } }
        guard let file = found else { throw HTTPError.notFound() }
        guard request.method == .get || request.method == .head else {
            throw HTTPError.methodNotAllowed(allowed: [.get, .head])
        }
        var response: HTTPResponse
        switch file {
        case .cached(let representation):
            response = representation.response(to: request)
        case .large(let path, let identity):
            let fields = [HTTPField("Content-Type", ContentType.forFile(path)), HTTPField("ETag", identity.etag)]
            if let condition = request.headers.valueBytes("if-none-match"), ETag.ifNoneMatch(condition, matches: identity.etag) {
                response = HTTPResponse(status: .notModified, headers: fields)
            } else {
                guard let body = FileBody(path: path, length: identity.size) else { throw HTTPError.notFound() }
                response = HTTPResponse(status: .ok, headers: fields)
                response.file = body
            }
        }
        response.kind = .page
        return response
    }

    private enum Found {
        case cached(CachedRepresentation)
        /// Past `maxCachedFileBytes`: sent from the file at `path`.
        case large(path: String, FileIdentity)
    }

    /// The file a request path names, as a path below the root that starts
    /// with `/`, or nil when a segment could leave the folder or names a
    /// hidden file. Empty segments are dropped; a trailing slash means the
    /// folder's index. A path already in that form, as nearly every request's
    /// is, comes back as it is: read on its bytes, with nothing made.
    static func canonicalPath(_ path: String) -> String? {
        var bytes = path.utf8.makeIterator()
        guard bytes.next() == slash else { return nil }
        var previous = slash
        var canonical = true
        while let byte = bytes.next() {
            switch byte {
            case 0, UInt8(ascii: "\\"): return nil
            case UInt8(ascii: ".") where previous == slash: return nil
            case slash where previous == slash: canonical = false
            default: break
            }
            previous = byte
        }
        if canonical && previous != slash { return path }
        let segments = path.utf8.split(separator: slash).map { String(Substring($0)) }
        return "/" + (segments + (previous == slash ? ["index.html"] : [])).joined(separator: "/")
    }

    private static let slash = UInt8(ascii: "/")

    /// The kept file at `path`, if it was looked at on disk less than
    /// `revalidateAfter` ago.
    private func freshlyKept(_ path: String) -> CachedRepresentation? {
        guard let kept = cache.withLock({ $0.entries[path] }),
              MonotonicClock.now < kept.checkedAt + UInt64(revalidateAfter * 1_000_000_000) else { return nil }
        return kept.representation
    }

    /// The file at `key` below the root (a canonical request path) as the disk
    /// has it now, kept by that key when small; on the thread that looks at the disk.
    private func find(_ key: String) -> Found? {
        let path = root + key
        let now = MonotonicClock.now
        let kept = cache.withLock { $0.entries[key] }
        let current = FileIdentity(path: path)
        if let kept, kept.identity == current {
            cache.withLock { $0.entries[key]?.checkedAt = now }
            return .cached(kept.representation)
        }
        // A folder is served through its index.
        var target = path
        var identity = current
        if identity == nil {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
            target = path + "/index.html"
            identity = FileIdentity(path: target)
        }
        guard let identity, let real = Self.realPath(target), real.hasPrefix(root + "/") else { return nil }
        guard identity.size <= maxCachedFileBytes else { return .large(path: real, identity) }
        guard let bytes = SmallFile.read(real, limit: maxCachedFileBytes) else { return nil }
        let representation = CachedRepresentation(bytes, contentType: ContentType.forFile(real))
        // Made here rather than by the first request that asks for it, on a loop.
        _ = representation.gzip
        store(Entry(identity: target == path ? identity : FileIdentity(path: path) ?? identity,
                    representation: representation, checkedAt: now), for: key)
        return .cached(representation)
    }

    private func store(_ entry: Entry, for key: String) {
        cache.withLock { cache in
            if let old = cache.entries.removeValue(forKey: key) { cache.bytes -= old.representation.byteCount }
            let size = entry.representation.byteCount
            // Over budget, start over rather than track recency: the folder is
            // small in practice, and a full refill costs one read per file.
            if cache.bytes + size > budgetBytes {
                cache.entries.removeAll()
                cache.bytes = 0
            }
            guard size <= budgetBytes else { return }
            cache.entries[key] = entry
            cache.bytes += size
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

