import Glibc

/// Immutable bytes at a stable address, shared by every response that sends them.
///
/// A precomputed body (a cached view model, a static file, its gzip variant) is made
/// once and then written by many connections on many loops. A stable address lets
/// the writer hand it to `writev` next to a response head without copying it.
public final class SharedBytes: Sendable {
    /// `nonisolated(unsafe)` because a buffer pointer is not `Sendable`: the
    /// bytes are written once, in `init`, and only read after, from any thread.
    private nonisolated(unsafe) let storage: UnsafeMutableRawBufferPointer

    public init(_ bytes: some Collection<UInt8>) {
        let count = bytes.count
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 1)
        // Arrays and slices are copied with one memcpy; only other collections
        // go element by element (this init is generic across modules and would
        // otherwise copy a 30 KB view model a byte at a time).
        let copied: Bool? = bytes.withContiguousStorageIfAvailable { source in
            storage.copyMemory(from: UnsafeRawBufferPointer(source))
            return true
        }
        if copied == nil {
            _ = storage.initializeMemory(as: UInt8.self, from: bytes)
        }
        self.storage = UnsafeMutableRawBufferPointer(rebasing: storage[0..<count])
    }

    public convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    deinit {
        storage.deallocate()
    }

    public var count: Int { storage.count }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(storage) }

    public var array: [UInt8] { Array(bytes) }

    /// Whether `other` holds the same bytes: the same object, or equal memory.
    public func hasSameBytes(as other: SharedBytes) -> Bool {
        self === other || (count == other.count && (count == 0 || memcmp(storage.baseAddress!, other.storage.baseAddress!, count) == 0))
    }

    public static let empty = SharedBytes([UInt8]())
}
