import Synchronization
import TailorDomain
import TailorHTTP
import TailorLoop

/// One Server-Sent Event, its bytes made once: `id: N`, `event: NAME`, one `data:`
/// line of JSON, and the blank line that ends it (WHATWG HTML §9.2).
///
/// Held as three pieces written together: the short head made here, the view
/// model's own shared bytes (never copied), and the line ends.
///
/// One event is made per change and shared by every stream that gets it, so
/// the memory streams account for counts its bytes once, however many hold
/// it, plus what each holding stream adds (`perHolder`): a fan-out to ten
/// thousand streams that read promptly holds one copy, not ten thousand.
package struct StreamEvent: Sendable {
    package let id: Int64
    package let head: SharedBytes
    package let json: SharedBytes
    /// The streams holding this event now.
    private let holders: Holders

    package init(id: Int64, name: String, json: SharedBytes) {
        self.id = id
        head = Self.head(id: id, name: name)
        self.json = json
        holders = Holders()
    }

    /// `id: N`, `event: NAME` and the start of the data line, written in
    /// place: an event is made for every view model a pass builds.
    private static func head(id: Int64, name: String) -> SharedBytes {
        let number = String(id).utf8
        let count = "id: ".utf8.count + number.count + "\nevent: ".utf8.count + name.utf8.count + "\ndata: ".utf8.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            var end = 0
            func put(_ part: String.UTF8View) {
                for byte in part {
                    buffer[end] = byte
                    end += 1
                }
            }
            put("id: ".utf8)
            put(number)
            put("\nevent: ".utf8)
            put(name.utf8)
            put("\ndata: ".utf8)
            return SharedBytes(UnsafeBufferPointer(buffer))
        }
    }

    /// The bytes of the event.
    package var byteCount: Int { head.count + json.count + Self.end.count }

    /// What one stream adds by holding an event: its place in the queue and
    /// in the write's list of pieces.
    package static let perHolder = 64

    /// A stream holds the event from now: the change in bytes held, the
    /// event's own for its first holder.
    package func hold() -> Int {
        (holders.count.add(1, ordering: .relaxed).newValue == 1 ? byteCount : 0) + Self.perHolder
    }

    /// A stream holds the event no more: the change in bytes held, the
    /// event's own gone with its last holder.
    package func release() -> Int {
        -((holders.count.subtract(1, ordering: .relaxed).newValue == 0 ? byteCount : 0) + Self.perHolder)
    }

    /// A holding stream's share of the event's bytes: its own part and an
    /// equal part of the event, for choosing which streams to end.
    package var share: Int {
        Self.perHolder + byteCount / max(holders.count.load(ordering: .relaxed), 1)
    }

    private final class Holders: Sendable {
        let count = Atomic<Int>(0)
    }

    /// The event as pieces of one write.
    package var pieces: [SharedBytes] { [head, json, Self.end] }

    package static let end = SharedBytes("\n\n")

    /// The event name of a topic's view model.
    package static let retry = SharedBytes("retry: 3000\n\n")
    package static let heartbeat = SharedBytes(": ping\n\n")
}
