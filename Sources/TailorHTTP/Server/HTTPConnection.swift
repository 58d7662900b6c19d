import Logging
import TailorLoop

/// Serves one connection's requests, in order, on the loop that accepted it.
///
/// The code reads as the protocol goes: wait for a head, read the body its
/// framing announces, ask the responder, queue the answer. Answers are written
/// when no further request is already buffered, so pipelined requests are
/// answered with one write. Any error in framing closes the connection after its
/// answer, since the rest of the stream can no longer be trusted (RFC 9112 §9.6).
final class HTTPConnection {
    private let socket: SocketConnection
    private let peer: PeerAddress
    private let server: HTTPServer
    private let date: HTTPDate
    /// The parser and the buffers, lent by the task that serves connections.
    private let buffers: ConnectionBuffers
    /// No request has been read yet: the head timer runs from the accept, so
    /// that a connection that never sends a byte is not kept as if it were idle.
    private var awaitingFirstRequest = true
    /// When the body being read must be complete.
    private var bodyDeadline: UInt64 = 0
    /// Whether the client is still there, for the request being answered:
    /// one for the connection, since a hang-up ends it.
    private let presence = ClientPresence()
    /// Notes a hang-up while a request is answered; made once, so that
    /// handing it to the socket for each request allocates nothing.
    private let noteHangUp: () -> Void

    /// Reads happen in pieces at least this large.
    private static let readSize = 4096
    /// Queued answers past this size are written without waiting for more.
    private static let flushThreshold = 64 * 1024

    /// `buffers` hold nothing of another connection (`ConnectionBuffers.emptied()`).
    init(socket: SocketConnection, peer: PeerAddress, server: HTTPServer, date: HTTPDate, buffers: ConnectionBuffers) {
        self.socket = socket
        self.peer = peer
        self.server = server
        self.date = date
        self.buffers = buffers
        noteHangUp = { [presence] in presence.noteLeft() }
    }

    func run() async {
        do {
            // A stream's owner closes the socket when the stream ends.
            if try await serveRequests() == .handedToStream { return }
        } catch let error as ConnectionError {
            server.logger.trace("connection \(socket.fd) ended: \(error)")
        } catch {
            server.logger.debug("connection \(socket.fd) failed: \(error)")
        }
        socket.close()
    }

    private var configuration: HTTPServerConfiguration { server.configuration }

    /// How serving a connection's requests ended.
    private enum End {
        /// The connection is done with and closes.
        case finished
        /// It was handed to a response stream, which now owns it.
        case handedToStream
    }

    private func serveRequests() async throws -> End {
        while let head = try await nextHead() {
            let body: [UInt8]
            switch try await readBody(for: head) {
            case .complete(let bytes): body = bytes
            case .rejected(let error):
                try await answerAndClose(server.responder.crossOriginFields(on: HTTPError(error).response, for: head), minorVersion: head.minorVersion)
                return .finished
            case .answeredBeforeBody(let response):
                try await answerAndClose(server.responder.crossOriginFields(on: response, for: head), minorVersion: head.minorVersion)
                return .finished
            case .timedOut:
                try await answerAndClose(server.responder.crossOriginFields(on: HTTPError.timedOut.response, for: head), minorVersion: head.minorVersion)
                return .finished
            case .peerGone:
                return .finished
            }
            socket.deadline = 0
            var request = HTTPRequest(head: head, body: body)
            request.peer = peer
            request.presence = presence
            // Nothing reads while the request is answered: a hang-up is reported here.
            socket.peerClosedHandler = noteHangUp
            let response = await server.responder.respond(to: request)
            socket.peerClosedHandler = nil
            if let stream = response.stream, head.method != .head {
                try await serveStream(response, stream: stream, minorVersion: head.minorVersion)
                return .handedToStream
            }
            let keepAlive = head.keepAlive && !response.closesConnection && !server.isDraining
            queue(response, minorVersion: head.minorVersion, omitBody: head.method == .head, keepAlive: keepAlive)
            if let file = response.file, head.method != .head {
                try await flush()
                try await send(file)
            }
            if !keepAlive {
                try await flush()
                // A client that asked to close sends nothing more (RFC 9112
                // §9.6): with nothing of it unread, the close cannot reset the
                // answer, and closing at once saves the wait for its end.
                if !head.keepAlive && !response.closesConnection && buffers.inbound.isEmpty { return .finished }
                await lingerAndClose()
                return .finished
            }
            if buffers.outbound.pendingBytes >= Self.flushThreshold { try await flush() }
            buffers.inbound.shrinkIfEmpty()
            buffers.parser.shrink()
        }
        try await flush()
        return .finished
    }

    // MARK: - Reading a request

    /// The next request's head, or nil when the connection should end quietly.
    private func nextHead() async throws -> HTTPRequestHead? {
        let idleWait = buffers.inbound.isEmpty && !awaitingFirstRequest
        socket.deadline = MonotonicClock.after(seconds: idleWait ? configuration.idleTimeout : configuration.headerTimeout)
        defer { awaitingFirstRequest = false }
        while true {
            switch buffers.parser.parse(buffers.inbound.readable) {
            case .head(let head, let length):
                buffers.inbound.consume(length)
                buffers.parser.reset()
                return head
            case .failure(let error):
                try await answerAndClose(HTTPError(error).response, minorVersion: 1)
                return nil
            case .needMoreData:
                break
            }
            // Everything answered so far goes out before we wait for more.
            if !buffers.outbound.isEmpty { try await flush() }
            let empty = buffers.inbound.isEmpty
            if empty && server.isDraining { return nil }
            socket.isIdle = empty
            let count: Int
            do {
                count = try await socket.read(into: buffers.inbound.space(minimum: Self.readSize))
                socket.isIdle = false
            } catch ConnectionError.timedOut where !buffers.inbound.isEmpty {
                try await answerAndClose(HTTPError.timedOut.response, minorVersion: 1)
                return nil
            } catch ConnectionError.shuttingDown {
                // Bytes that have already arrived are a request in flight, not idleness.
                guard let count = try socket.readIfAvailable(into: buffers.inbound.space(minimum: Self.readSize)), count > 0 else { return nil }
                socket.isIdle = false
                buffers.inbound.commit(count)
                socket.deadline = MonotonicClock.after(seconds: configuration.headerTimeout)
                continue
            } catch ConnectionError.timedOut {
                return nil
            }
            guard count > 0 else { return nil }
            buffers.inbound.commit(count)
            // After a keep-alive wait the head timer starts with the request's
            // first byte; the first request's runs from the accept.
            if empty && !awaitingFirstRequest { socket.deadline = MonotonicClock.after(seconds: configuration.headerTimeout) }
        }
    }

    private enum BodyOutcome {
        case complete([UInt8])
        case rejected(HTTPParseError)
        /// The client waits for `100 Continue`, but the head already decides the answer.
        case answeredBeforeBody(HTTPResponse)
        case timedOut
        case peerGone
    }

    private func readBody(for head: HTTPRequestHead) async throws -> BodyOutcome {
        bodyDeadline = MonotonicClock.after(seconds: configuration.bodyTimeout)
        switch head.bodyFraming {
        case .none:
            return .complete([])
        case .length(let length):
            // Refused before a byte of it is read (RFC 9110 §15.5.14).
            guard length <= configuration.maxBodyBytes else { return .rejected(.bodyTooLarge) }
            if head.expectsContinue && buffers.inbound.count < length {
                if let answer = await server.responder.answerBeforeBody(head) { return .answeredBeforeBody(answer) }
                try await sendContinue()
            }
            var body: [UInt8] = []
            body.reserveCapacity(length)
            while true {
                let take = min(buffers.inbound.count, length - body.count)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffers.inbound.readable[0..<take]))
                buffers.inbound.consume(take)
                if body.count == length { return .complete(body) }
                if let stop = try await readMore() { return stop }
            }
        case .chunked:
            if head.expectsContinue && buffers.inbound.isEmpty {
                if let answer = await server.responder.answerBeforeBody(head) { return .answeredBeforeBody(answer) }
                try await sendContinue()
            }
            var decoder = ChunkedBodyDecoder(maxBodyBytes: configuration.maxBodyBytes,
                                             maxTrailerBytes: configuration.parserLimits.maxHeadBytes)
            while true {
                let (progress, consumed) = decoder.decode(buffers.inbound.readable)
                buffers.inbound.consume(consumed)
                switch progress {
                case .finished: return .complete(decoder.body)
                case .failure(let error): return .rejected(error)
                case .needMoreData: if let stop = try await readMore() { return stop }
                }
            }
        }
    }

    /// Reads the next piece of a body; each must arrive within the head
    /// timeout, and all of them within the body timeout.
    private func readMore() async throws -> BodyOutcome? {
        socket.deadline = min(MonotonicClock.after(seconds: configuration.headerTimeout), bodyDeadline)
        do {
            let count = try await socket.read(into: buffers.inbound.space(minimum: 16 * 1024))
            guard count > 0 else { return .peerGone }
            buffers.inbound.commit(count)
            return nil
        } catch ConnectionError.timedOut {
            return .timedOut
        }
    }

    private func sendContinue() async throws {
        try await flush()
        socket.deadline = MonotonicClock.after(seconds: configuration.idleTimeout)
        try await socket.write(Self.continueLine)
    }

    private static let continueLine = SharedBytes("HTTP/1.1 100 Continue\r\n\r\n")

    // MARK: - Writing responses

    private func queue(_ response: HTTPResponse, minorVersion: Int, omitBody: Bool, keepAlive: Bool) {
        let status = response.status.code
        // RFC 9110 §8.6: no Content-Length on 1xx or 204; a 304 has no body to count.
        let hasLength = status >= 200 && status != 204 && status != 304
        let inlineBody = omitBody || !hasLength || response.file != nil ? nil : response.body
        buffers.outbound.append(body: inlineBody) { head in
            writeHead(into: &head, response, minorVersion: minorVersion) { head in
                if hasLength {
                    head.append("\r\nContent-Length: ")
                    head.appendDecimal(response.bodyLength)
                }
                if !keepAlive {
                    head.append("\r\nConnection: close")
                } else if minorVersion == 0 {
                    head.append("\r\nConnection: keep-alive")
                }
            }
        }
    }

    /// A response head: the status line, `Server` and `Date`, the connection's own
    /// fields (framing), the fields of the answer's kind, the handler's fields,
    /// and the blank line.
    private func writeHead(into head: inout HeadWriter, _ response: HTTPResponse, minorVersion: Int,
                           framing: (inout HeadWriter) -> Void) {
        head.append(minorVersion == 0 ? "HTTP/1.0 " : "HTTP/1.1 ")
        head.appendDecimal(response.status.code)
        head.append(" ")
        head.append(response.status.reason)
        head.append("\r\nServer: Tailor\r\nDate: ")
        head.append(date.current())
        framing(&head)
        if let requestID = response.requestID {
            head.append("\r\nX-Request-ID: ")
            head.append(requestID)
        }
        head.append(configuration.browserFields.lines(for: response.kind))
        for field in response.headers {
            head.append("\r\n")
            head.append(field.name)
            head.append(": ")
            head.append(field.value)
        }
        head.append("\r\n\r\n")
    }

    /// Sends the head of a streamed response and hands the connection to its
    /// stream, whose owner ends the body and closes the connection. This task
    /// and its buffers end here: an idle stream keeps only what it needs to write.
    private func serveStream(_ response: HTTPResponse, stream: @Sendable (ResponseStream) async -> Void, minorVersion: Int) async throws {
        buffers.outbound.append(body: nil) { head in
            writeHead(into: &head, response, minorVersion: minorVersion) { head in
                // HTTP/1.0 has no chunked coding: its stream ends with the connection.
                head.append(minorVersion == 0 ? "\r\nConnection: close" : "\r\nTransfer-Encoding: chunked\r\nConnection: close")
            }
        }
        try await flush()
        socket.deadline = 0
        await stream(ResponseStream(socket: socket, writeTimeout: configuration.idleTimeout, chunked: minorVersion == 1))
    }

    /// A file body after its head: each piece must leave within the idle timeout.
    private func send(_ file: FileBody) async throws {
        let readDeadline = socket.deadline
        socket.deadline = MonotonicClock.after(seconds: configuration.idleTimeout)
        try await socket.sendFile(file.fd, offset: 0, count: file.length) {
            socket.deadline = MonotonicClock.after(seconds: configuration.idleTimeout)
        }
        socket.deadline = readDeadline
    }

    private func flush() async throws {
        guard !buffers.outbound.isEmpty else { return }
        let readDeadline = socket.deadline
        // A client that stops reading its answers is as stuck as an idle one.
        socket.deadline = MonotonicClock.after(seconds: configuration.idleTimeout)
        try await buffers.outbound.flush(to: socket)
        socket.deadline = readDeadline
    }

    /// Sends a final answer after a framing error, then closes.
    private func answerAndClose(_ response: HTTPResponse, minorVersion: Int) async throws {
        var response = response
        response.closesConnection = true
        queue(response, minorVersion: minorVersion, omitBody: false, keepAlive: false)
        try await flush()
        await lingerAndClose()
    }

    /// Closing with unread input makes the kernel send a reset, which can destroy
    /// an answer the client has not read yet. So: send FIN, then read and discard
    /// for a short, bounded while (RFC 9112 §9.6), then close.
    private func lingerAndClose() async {
        socket.shutdownWrites()
        socket.deadline = MonotonicClock.after(seconds: 2)
        var discarded = 0
        while discarded < 1024 * 1024 {
            buffers.inbound.consume(buffers.inbound.count)
            let count: Int
            do {
                // Discarded in the buffer's own size: growing it for this would allocate.
                count = try await socket.read(into: buffers.inbound.space(minimum: Self.readSize))
            } catch {
                // Timed out, reset or shut down: the answer has had its chance.
                break
            }
            guard count > 0 else { break }
            buffers.inbound.commit(count)
            discarded += count
        }
    }
}
