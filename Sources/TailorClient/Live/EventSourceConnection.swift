import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TailorWire

/// One event-stream request: what it brings, as an asynchronous sequence of
/// its opening and its events. It ends when the server ends the stream, and
/// fails with the server's error for an answer other than 200, or as
/// unreachable when the connection cannot be made or breaks.
///
/// `@unchecked Sendable`: URLSession's delegate must be an `NSObject`, which
/// the compiler cannot check; all that changes after `init` is in `reading`,
/// under its lock, and the stream's continuation, which is Sendable.
final class EventSourceConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Item: Sendable {
        case opened
        case event(EventStreamEvent)
    }

    let items: AsyncThrowingStream<Item, any Error>
    private let continuation: AsyncThrowingStream<Item, any Error>.Continuation
    /// What the session's delegate queue reads and writes, one callback at a time.
    private struct Reading {
        var parser: EventStreamParser
        var status = 0
        var errorBody: [UInt8] = []
        var task: URLSessionDataTask?
        /// Once the task completed it is never cancelled: FoundationNetworking on
        /// Linux stops the process when a cancel reaches a task it has let go.
        var completed = false
    }
    private let reading: Mutex<Reading>
    private let request: URLRequest

    init(request: URLRequest) {
        self.request = request
        (items, continuation) = AsyncThrowingStream.makeStream()
        reading = Mutex(Reading(parser: EventStreamParser()))
        super.init()
    }

    func start() {
        let configuration = TailorClient.sessionConfiguration()
        // Heartbeats come every 15 s by default: a minute of silence is a dead stream.
        configuration.timeoutIntervalForRequest = 60
        configuration.timeoutIntervalForResource = .greatestFiniteMagnitude
        // The session holds this delegate until the task completes and it is let go.
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        let task = session.dataTask(with: request)
        reading.withLock { $0.task = task }
        continuation.onTermination = { [weak self] _ in self?.cancel() }
        task.resume()
    }

    /// Stops the request, unless it already completed.
    func cancel() {
        let running = reading.withLock { reading -> URLSessionDataTask? in
            defer { reading.task = nil }
            return reading.completed ? nil : reading.task
        }
        running?.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        reading.withLock { $0.status = status }
        if status == 200 { continuation.yield(.opened) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events: [EventStreamEvent] = reading.withLock { reading in
            guard reading.status == 200 else {
                reading.errorBody.append(contentsOf: data.prefix(16_384 - reading.errorBody.count))
                return []
            }
            return data.withUnsafeBytes { reading.parser.read($0) }
        }
        for event in events { continuation.yield(.event(event)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (status, body) = reading.withLock { reading in
            reading.completed = true
            reading.task = nil
            return (reading.status, reading.errorBody)
        }
        if let error {
            continuation.finish(throwing: TailorError.unreachable(error))
        } else if status != 200 {
            continuation.finish(throwing: APIConnection.error(status: status, body: Data(body)))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
