import TailorDomain
import TailorHTTP
import TailorLoop

/// One Server-Sent Event, its bytes made once: `id: N`, `event: NAME`, one `data:`
/// line of JSON, and the blank line that ends it (WHATWG HTML §9.2).
///
/// Held as three pieces written together: the short head made here, the view
/// model's own shared bytes (never copied), and the line ends.
struct StreamEvent: Sendable {
    let id: Int64
    let head: SharedBytes
    let json: SharedBytes

    init(id: Int64, name: String, json: SharedBytes) {
        self.id = id
        head = SharedBytes(Array("id: \(id)\nevent: \(name)\ndata: ".utf8))
        self.json = json
    }

    /// The bytes of the event, for the memory streams account for.
    var byteCount: Int { head.count + json.count + Self.end.count }

    /// The event as pieces of one write.
    var pieces: [SharedBytes] { [head, json, Self.end] }

    static let end = SharedBytes("\n\n")

    /// The event name of a topic's view model.
    static let retry = SharedBytes("retry: 3000\n\n")
    static let heartbeat = SharedBytes(": ping\n\n")
}
