/// An event of a `text/event-stream`.
public struct EventStreamEvent: Sendable, Equatable {
    public var name: String
    /// The event's data lines joined with LF: a view model's JSON.
    public var data: [UInt8]
    /// The stream's last event id once this event came (ids carry over, as in a browser).
    public var lastEventID: String

    public init(name: String, data: [UInt8], lastEventID: String) {
        self.name = name
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// Reads a `text/event-stream` as the WHATWG rules say a browser does: lines
/// end with LF, CRLF or CR; `field: value` (one space after the colon
/// dropped); a line starting with a colon is a comment; a blank line
/// dispatches the event, whose data lines are joined with LF; an event with
/// no data is dropped; `id` sets the last event id unless it holds a NUL.
/// Bytes may come split anywhere, a CRLF between two reads included.
public struct EventStreamParser: Sendable {
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var name = ""
    private var data: [UInt8] = []
    private var hasData = false
    public private(set) var lastEventID: String

    public init(lastEventID: String = "") {
        self.lastEventID = lastEventID
    }

    /// The events complete once `bytes` are read.
    public mutating func read(_ bytes: [UInt8]) -> [EventStreamEvent] {
        bytes.withUnsafeBytes { read($0) }
    }

    public mutating func read(_ bytes: ArraySlice<UInt8>) -> [EventStreamEvent] {
        bytes.withUnsafeBytes { read($0) }
    }

    /// Read through a buffer, not any collection: across a module a generic
    /// reader is not specialised, and it would take a call per byte of a
    /// 60 KB view model.
    public mutating func read(_ bytes: UnsafeRawBufferPointer) -> [EventStreamEvent] {
        var events: [EventStreamEvent] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == Self.lineFeed || byte == Self.carriageReturn {
                // The LF of a CRLF ends no second line.
                if !(lastWasCR && byte == Self.lineFeed), let event = endLine() { events.append(event) }
                lastWasCR = byte == Self.carriageReturn
                index += 1
                continue
            }
            lastWasCR = false
            // The rest of the line, taken as one run: an event's data is a whole view model.
            var end = index + 1
            while end < bytes.count, bytes[end] != Self.lineFeed, bytes[end] != Self.carriageReturn { end += 1 }
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
            index = end
        }
        return events
    }

    private mutating func endLine() -> EventStreamEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        var valueStart = min(colon + 1, line.endIndex)
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let field = line[..<colon], value = line[valueStart...]
        if field.elementsEqual("data".utf8) {
            if hasData { data.append(Self.lineFeed) }
            data.append(contentsOf: value)
            hasData = true
        } else if field.elementsEqual("event".utf8) {
            name = String(decoding: value, as: UTF8.self)
        } else if field.elementsEqual("id".utf8), !value.contains(0) {
            lastEventID = String(decoding: value, as: UTF8.self)
        }
        // `retry` and unknown fields: a client keeps its own backoff.
        return nil
    }

    private mutating func dispatch() -> EventStreamEvent? {
        defer {
            name = ""
            data = []
            hasData = false
        }
        guard hasData else { return nil }
        return EventStreamEvent(name: name.isEmpty ? "message" : name, data: data, lastEventID: lastEventID)
    }

    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
}
