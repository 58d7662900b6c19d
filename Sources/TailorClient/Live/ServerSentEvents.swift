/// An event of a `text/event-stream`.
struct ServerSentEvent: Sendable, Equatable {
    var name: String
    var data: String
    /// The stream's last event id once this event came (ids carry over, as in a browser).
    var lastEventID: String
}

/// Reads a `text/event-stream` as the WHATWG rules say a browser does: lines
/// end with LF, CRLF or CR; `field: value` (one space after the colon
/// dropped); a line starting with a colon is a comment; a blank line
/// dispatches the event, whose data lines are joined with LF; an event with
/// no data is dropped; `id` sets the last event id unless it holds a NUL.
struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var name = ""
    private var data: [String] = []
    private(set) var lastEventID: String

    init(lastEventID: String = "") {
        self.lastEventID = lastEventID
    }

    /// The events complete once `bytes` are read.
    mutating func read(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if lastWasCR, byte == UInt8(ascii: "\n") {
                lastWasCR = false
                continue
            }
            lastWasCR = byte == UInt8(ascii: "\r")
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "event": name = String(value)
        case "data": data.append(String(value))
        case "id" where !value.contains("\0"): lastEventID = String(value)
        default: break // retry and unknown fields: the client keeps its own backoff
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            name = ""
            data = []
        }
        guard !data.isEmpty else { return nil }
        return ServerSentEvent(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"), lastEventID: lastEventID)
    }
}
