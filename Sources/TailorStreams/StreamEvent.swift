import TailorDomain
import TailorHTTP
import TailorLoop

/// One Server-Sent Event, its bytes made once: `id: N`, `event: NAME`, one `data:`
/// line of JSON, and the blank line that ends it (WHATWG HTML §9.2).
///
/// Held as three pieces written together: the short head made here, the view
/// model's own shared bytes (never copied), and the line ends.
package struct StreamEvent: Sendable {
    package let id: Int64
    package let head: SharedBytes
    package let json: SharedBytes

    package init(id: Int64, name: String, json: SharedBytes) {
        self.id = id
        head = SharedBytes(Array("id: \(id)\nevent: \(name)\ndata: ".utf8))
        self.json = json
    }

    /// The bytes of the event, for the memory streams account for.
    package var byteCount: Int { head.count + json.count + Self.end.count }

    /// The event as pieces of one write.
    package var pieces: [SharedBytes] { [head, json, Self.end] }

    package static let end = SharedBytes("\n\n")

    /// The event name of a topic's view model.
    package static let retry = SharedBytes("retry: 3000\n\n")
    package static let heartbeat = SharedBytes(": ping\n\n")
}
