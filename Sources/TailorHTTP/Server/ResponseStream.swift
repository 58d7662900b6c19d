import Glibc
import TailorLoop

/// The open end of a streamed response: each write sends one chunk of the
/// chunked body (RFC 9112 §7.1), made of pieces that are shared, not copied.
///
/// It owns the connection once the response's head is sent: the connection's
/// task has ended, and nothing is read any more. Whoever the stream's closure
/// hands it to writes it from jobs on its loop, and closes it there.
///
/// Confined to the connection's loop, like the connection itself.
public final class ResponseStream: @unchecked Sendable {
    let socket: SocketConnection
    let writeTimeout: Double
    /// HTTP/1.1 frames each write as a chunk; HTTP/1.0 sends the bytes as they are.
    let chunked: Bool
    private var vectors: UnsafeMutableBufferPointer<iovec>
    /// The chunk's size in hex and CRLF: at most 16 digits and 2 bytes.
    private let sizeLine = UnsafeMutableRawBufferPointer.allocate(byteCount: 18, alignment: 1)
    private static let lineEnd = SharedBytes("\r\n")
    /// A chunk the socket did not take whole: its vectors from `unsentStart` on
    /// still point at bytes to send, and `unsentPieces` keeps those bytes alive.
    private var unsentStart = 0
    private var unsentEnd = 0
    private var unsentPieces: [SharedBytes] = []

    init(socket: SocketConnection, writeTimeout: Double, chunked: Bool) {
        self.socket = socket
        self.writeTimeout = writeTimeout
        self.chunked = chunked
        vectors = .allocate(capacity: 8)
    }

    deinit {
        vectors.deallocate()
        sizeLine.deallocate()
    }

    /// The loop the stream runs on.
    public var loop: EventLoop { socket.loop }

    /// A stream between two loops (`detach`, `adopt`).
    public struct Detached: Sendable {
        let socket: DetachedSocket
        let writeTimeout: Double
        let chunked: Bool
    }

    /// Takes the stream off its loop, so that another loop writes it from
    /// now on (the loop that owns the stream's other state, whose writes then
    /// need no hop). Call on its loop, before anything is written to it; this
    /// object is done with.
    public func detach() -> Detached {
        precondition(!hasUnsentBytes, "a stream detached in the middle of a chunk")
        return Detached(socket: socket.detach(), writeTimeout: writeTimeout, chunked: chunked)
    }

    /// The stream `detached`, written by `loop` from now on. Call on that
    /// loop's thread. When the loop cannot watch it the stream is gone: its
    /// connection is closed (and counted so) and the error thrown.
    public static func adopt(_ detached: Detached, on loop: EventLoop) throws -> ResponseStream {
        ResponseStream(socket: try loop.adopt(detached.socket), writeTimeout: detached.writeTimeout, chunked: detached.chunked)
    }

    /// Whether part of an earlier chunk still waits for room in the socket.
    public var hasUnsentBytes: Bool { unsentStart < unsentEnd }

    /// Sends `pieces` as one chunk as far as the socket takes it now: true when
    /// all of it went out. What did not is kept for `sendRest`. Only for a
    /// stream with nothing unsent.
    public func writeWithoutWaiting(_ pieces: [SharedBytes]) throws -> Bool {
        precondition(!hasUnsentBytes, "a chunk would overtake the rest of an earlier one")
        let total = pieces.reduce(0) { $0 + $1.count }
        guard total > 0 else { return true }
        if vectors.count < pieces.count + 2 {
            vectors.deallocate()
            vectors = .allocate(capacity: pieces.count * 2 + 2)
        }
        let sizeCount = chunked ? writeSizeLine(total) : 0
        vectors[0] = iovec(iov_base: sizeLine.baseAddress, iov_len: sizeCount)
        for (index, piece) in pieces.enumerated() {
            vectors[index + 1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.bytes.baseAddress), iov_len: piece.count)
        }
        vectors[pieces.count + 1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: Self.lineEnd.bytes.baseAddress), iov_len: chunked ? 2 : 0)
        let count = pieces.count + 2
        let sent = try withExtendedLifetime(pieces) {
            try socket.writeAvailable(UnsafeMutableBufferPointer(rebasing: vectors[0..<count]))
        }
        guard sent < count else { return true }
        unsentStart = sent
        unsentEnd = count
        unsentPieces = pieces
        return false
    }

    /// Sends the rest of the chunk `writeWithoutWaiting` did not send whole, as
    /// the socket makes room, then calls `then` on the loop: with nil once it
    /// is all out, or with why it never will be (the reader left, or took
    /// nothing for the write timeout).
    public func sendRest(then: @escaping (ConnectionError?) -> Void) {
        socket.deadline = MonotonicClock.after(seconds: writeTimeout)
        do {
            unsentStart += try socket.writeAvailable(UnsafeMutableBufferPointer(rebasing: vectors[unsentStart..<unsentEnd]))
        } catch {
            then(.peerClosed)
            return
        }
        guard hasUnsentBytes else {
            socket.deadline = 0
            unsentStart = 0
            unsentEnd = 0
            unsentPieces = []
            then(nil)
            return
        }
        socket.whenWritable { [self] room in
            switch room {
            case .success: sendRest(then: then)
            case .failure(let reason): then(reason)
            }
        }
    }

    /// Ends the response: its last chunk when the socket takes it at once
    /// (never after a cut-off chunk, where it would read as part of that
    /// one), then the connection closes. On the stream's loop.
    public func close() {
        if chunked && !hasUnsentBytes {
            var last = iovec(iov_base: UnsafeMutableRawPointer(mutating: Self.lastChunk.bytes.baseAddress), iov_len: Self.lastChunk.count)
            do {
                _ = try withUnsafeMutablePointer(to: &last) { try socket.writeAvailable(UnsafeMutableBufferPointer(start: $0, count: 1)) }
            } catch {
                // The reader is gone: there is no one to tell that the body ended.
            }
        }
        socket.close()
    }

    private static let lastChunk = SharedBytes("0\r\n\r\n")

    /// Writes `count` in hex and CRLF into `sizeLine`; returns its length.
    private func writeSizeLine(_ count: Int) -> Int {
        let digits = max(1, (Int.bitWidth - count.leadingZeroBitCount + 3) / 4)
        for place in 0..<digits {
            let nibble = (count >> (4 * (digits - 1 - place))) & 0xF
            sizeLine[place] = nibble < 10 ? UInt8(ascii: "0") + UInt8(nibble) : UInt8(ascii: "a") + UInt8(nibble - 10)
        }
        sizeLine[digits] = UInt8(ascii: "\r")
        sizeLine[digits + 1] = UInt8(ascii: "\n")
        return digits + 2
    }

    /// Calls `handler` on the loop when the peer hangs up (at most once): at
    /// once when it already has, between its request and the stream's start.
    public func onPeerClosed(_ handler: @escaping () -> Void) {
        guard !socket.peerHasHungUp else {
            handler()
            return
        }
        socket.peerClosedHandler = handler
    }
}
