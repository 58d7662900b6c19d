import Glibc
import TailorLoop

/// The open end of a streamed response: each `write` sends one chunk of the
/// chunked body (RFC 9112 §7.1), made of pieces that are shared, not copied.
///
/// Confined to the connection's loop, like the connection itself; it is handed
/// to the stream's closure once and used there.
public final class ResponseStream: @unchecked Sendable {
    let socket: SocketConnection
    let writeTimeout: Double
    /// HTTP/1.1 frames each write as a chunk; HTTP/1.0 sends the bytes as they are.
    let chunked: Bool
    private var vectors: UnsafeMutableBufferPointer<iovec>
    /// The chunk's size in hex and CRLF: at most 16 digits and 2 bytes.
    private let sizeLine = UnsafeMutableRawBufferPointer.allocate(byteCount: 18, alignment: 1)
    private static let lineEnd = SharedBytes("\r\n")

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

    /// Sends `pieces` as one chunk; throws when the peer is gone or stopped
    /// reading for longer than the write timeout.
    public func write(_ pieces: [SharedBytes]) async throws {
        let total = pieces.reduce(0) { $0 + $1.count }
        guard total > 0 else { return }
        let sizeText = Array((String(total, radix: 16) + "\r\n").utf8)
        sizeLine.copyBytes(from: sizeText)
        if vectors.count < pieces.count + 2 {
            vectors.deallocate()
            vectors = .allocate(capacity: pieces.count * 2 + 2)
        }
        vectors[0] = iovec(iov_base: sizeLine.baseAddress, iov_len: chunked ? sizeText.count : 0)
        for (index, piece) in pieces.enumerated() {
            vectors[index + 1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: piece.bytes.baseAddress), iov_len: piece.count)
        }
        vectors[pieces.count + 1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: Self.lineEnd.bytes.baseAddress), iov_len: chunked ? 2 : 0)
        socket.deadline = MonotonicClock.after(seconds: writeTimeout)
        // The pieces must outlive the write that points at them.
        defer {
            socket.deadline = 0
            withExtendedLifetime(pieces) {}
        }
        try await socket.write(UnsafeMutableBufferPointer(rebasing: vectors[0..<(pieces.count + 2)]))
    }

    /// Calls `handler` on the loop when the peer hangs up (at most once).
    public func onPeerClosed(_ handler: @escaping () -> Void) {
        socket.peerClosedHandler = handler
    }

    /// Ends a write in progress; the stream's closure then sees an error.
    public func abort() {
        socket.interrupt(.peerClosed)
    }
}
