/// The bytes a connection has received and not yet consumed, in one buffer that
/// is read into directly and parsed in place.
///
/// Not copyable: it owns its memory, which goes with it.
struct InboundBuffer: ~Copyable {
    private var storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private let initialCapacity: Int

    init(capacity: Int) {
        initialCapacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    var count: Int { end - start }
    var isEmpty: Bool { start == end }

    var readable: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage[start..<end])
    }

    mutating func consume(_ byteCount: Int) {
        start += byteCount
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Room for at least `minimum` more bytes after the unconsumed ones, moving
    /// them to the front or growing the buffer as needed.
    mutating func space(minimum: Int) -> UnsafeMutableRawBufferPointer {
        if storage.count - end < minimum {
            if start > 0 {
                let unconsumed = count
                storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: unconsumed)
                start = 0
                end = unconsumed
            }
            if storage.count - end < minimum {
                var capacity = storage.count
                while capacity - end < minimum { capacity *= 2 }
                let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
                grown.baseAddress!.copyMemory(from: storage.baseAddress!, byteCount: end)
                storage.deallocate()
                storage = grown
            }
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[end...])
    }

    mutating func commit(_ byteCount: Int) {
        end += byteCount
    }

    /// Gives back memory a large request needed once the buffer is empty again,
    /// so an idle connection holds only its initial capacity.
    mutating func shrinkIfEmpty() {
        guard isEmpty, storage.count > initialCapacity else { return }
        storage.deallocate()
        storage = .allocate(byteCount: initialCapacity, alignment: 16)
    }
}
