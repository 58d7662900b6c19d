import TailorLoop
import TailorWire

/// One person of the scenario: an account, a chat with a partner, a keep-alive
/// connection for their requests and, when subscribed, an event stream.
///
/// Confined to its loop: the pacer, the sender and the stream reader that touch
/// it are tasks on that loop, so they never run at the same time.
final class SimulatedUser: @unchecked Sendable {
    enum Job {
        /// Message number `number`, due at `dueAt` by the open-loop schedule.
        case message(number: Int, dueAt: UInt64)
        /// Mark the chat read, asked for at `askedAt`.
        case markRead(askedAt: UInt64)
        /// Place order `number` and pay it, due at `dueAt`.
        case orderChange(number: Int, dueAt: UInt64)
    }

    let index: Int
    let name: String
    let loop: EventLoop
    /// The server this user speaks to, its streams included.
    let target: LoadTarget
    let connection: HTTPClientConnection
    var token = ""
    var chatID = ""
    /// The user at the other end of the chat.
    var partner = -1
    var stream: EventStreamClient?
    /// The data of the last event of each kind the stream brought.
    var latest: [String: [UInt8]] = [:]
    /// When the stream takes patches: each view model as the events so far
    /// add up to, and the id of the event that brought it.
    var held: [String: (id: String, document: PatchableJSON)] = [:]
    var lastMarkRead: UInt64 = 0
    var markReadQueued = false

    private var jobs: [Job] = []
    private var nextJob = 0
    private var waiter: UnsafeContinuation<Job?, Never>?
    private var finished = false

    init(index: Int, name: String, loop: EventLoop, target: LoadTarget, followsOrders: Bool) {
        self.index = index
        self.followsOrders = followsOrders
        self.name = name
        self.loop = loop
        self.target = target
        connection = HTTPClientConnection(target: target, loop: loop)
    }

    /// Whether the stream follows the orders list too.
    let followsOrders: Bool

    var topics: String {
        ([StreamTopic(.chats), StreamTopic(.badge), StreamTopic(.chat, id: String(chatID))] + (followsOrders ? [StreamTopic(.orders)] : []))
            .map(\.name).joined(separator: ",")
    }

    /// The view model of `name` the stream shows now.
    func shown(_ name: String) -> [UInt8]? {
        held[name]?.document.bytes ?? latest[name]
    }

    /// Queues `job` for the sender; the schedule never waits for the server.
    func enqueue(_ job: Job) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: job)
        } else {
            jobs.append(job)
        }
    }

    /// The sender's next job, waiting for one; nil once `finish()` was called
    /// and the queue is empty.
    func next() async -> Job? {
        if nextJob < jobs.count {
            defer {
                nextJob += 1
                if nextJob == jobs.count { jobs.removeAll(keepingCapacity: true); nextJob = 0 }
            }
            return jobs[nextJob]
        }
        if finished { return nil }
        return await withUnsafeContinuation { waiter = $0 }
    }

    /// No more jobs will come: the sender ends after the queued ones.
    func finish() {
        finished = true
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: nil)
        }
    }
}
