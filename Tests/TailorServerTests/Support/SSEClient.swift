import Foundation

/// A Server-Sent Events client over a raw socket: it undoes the chunked coding
/// and parses events as the WHATWG HTML rules say (fields per line, `data` lines
/// joined, a blank line dispatches, `:` lines are comments).
final class SSEClient {
    struct Event {
        var id: String?
        var name: String
        var data: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
    }

    let connection: RawClient
    let response: TestResponse
    private(set) var comments = 0
    private(set) var retry: Int?
    private(set) var ended = false
    private var chunked: [UInt8] = []
    private var text: [UInt8] = []
    private var pending = Event(id: nil, name: "message", data: "")
    private var hasData = false
    private var events: [Event] = []

    /// `patches`: the stream asks for JSON Patches (`patch=json`).
    init(port: Int, token: String?, topics: String, patches: Bool = false, lastEventID: String? = nil, timeout: Double = 20,
         receiveBuffer: Int? = nil, headers: [String] = []) throws {
        connection = try RawClient(port: port, timeout: timeout, receiveBuffer: receiveBuffer)
        let query = "topics=\(topics)" + (patches ? "&patch=json" : "")
        var head = "GET /api/events?\(query) HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let lastEventID { head += "Last-Event-ID: \(lastEventID)\r\n" }
        for header in headers { head += header + "\r\n" }
        try connection.send(head + "\r\n")
        response = try connection.readHead()
    }

    /// The next event, waiting for it (up to the read timeout).
    func next() throws -> Event {
        while events.isEmpty {
            guard let bytes = try connection.readSome() else {
                ended = true
                throw RawClient.Failure(description: "the stream ended")
            }
            chunked += bytes
            decodeChunks()
        }
        return events.removeFirst()
    }

    /// Events until one satisfies `condition`; returns it.
    func next(where condition: (Event) -> Bool) throws -> Event {
        while true {
            let event = try next()
            if condition(event) { return event }
        }
    }

    /// Reads until the server ends the stream; true if it did within the timeout.
    func waitForEnd() -> Bool {
        while true {
            do {
                _ = try next()
            } catch {
                return ended
            }
        }
    }

    /// Heartbeat comments seen so far, reading until at least `count` arrived.
    func waitForComments(_ count: Int) throws {
        while comments < count {
            guard let bytes = try connection.readSome() else { throw RawClient.Failure(description: "the stream ended") }
            chunked += bytes
            decodeChunks()
        }
    }

    private func decodeChunks() {
        while let lineEnd = find([13, 10], in: chunked) {
            let sizeText = String(decoding: chunked[0..<lineEnd], as: UTF8.self)
            guard let size = Int(sizeText, radix: 16) else {
                ended = true  // not chunked framing: nothing more can be read from it
                return
            }
            if size == 0 {
                ended = true
                chunked = []
                return
            }
            guard chunked.count >= lineEnd + 2 + size + 2 else { return }
            text += chunked[(lineEnd + 2)..<(lineEnd + 2 + size)]
            chunked.removeFirst(lineEnd + 2 + size + 2)
        }
        parseLines()
    }

    private func parseLines() {
        while let newline = text.firstIndex(of: 10) {
            let line = String(decoding: text[0..<newline], as: UTF8.self)
            text.removeFirst(newline + 1)
            if line.isEmpty {
                if hasData {
                    if pending.data.hasSuffix("\n") { pending.data.removeLast() }
                    events.append(pending)
                }
                pending = Event(id: pending.id, name: "message", data: "")
                hasData = false
                continue
            }
            if line.hasPrefix(":") {
                comments += 1
                continue
            }
            let field: String
            var value: String
            if let colon = line.firstIndex(of: ":") {
                field = String(line[..<colon])
                value = String(line[line.index(after: colon)...])
                if value.hasPrefix(" ") { value.removeFirst() }
            } else {
                field = line
                value = ""
            }
            switch field {
            case "event": pending.name = value
            case "data":
                pending.data += value + "\n"
                hasData = true
            case "id": pending.id = value
            case "retry": retry = Int(value)
            default: break
            }
        }
    }

    private func find(_ marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= marker.count else { return nil }
        for index in 0...(bytes.count - marker.count) where bytes[index] == marker[0] && bytes[index + 1] == marker[1] {
            return index
        }
        return nil
    }
}
