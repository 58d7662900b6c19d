import Synchronization
import TailorHTTP
import TailorLoop
import TailorStreams

/// The password hashes waiting for the `passwords` thread, which makes one at
/// a time. Waiting is bounded in all (`Limits.waiting`) and per client
/// address (`Limits.waitingPerClient`), and clients take turns: the next hash
/// is the oldest of the client served least recently, so one address sending
/// many sign-ins delays another's by one hash, not by its whole queue. A hash
/// whose client hung up while it waited is dropped unmade.
public final class PasswordQueue: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Hashes waiting at most, from all clients.
        public var waiting = 32
        /// Hashes waiting at most from one client address.
        public var waitingPerClient = 2

        public init() {}
    }

    /// Why a hash was not made.
    enum Refusal: Error, Equatable {
        /// `Limits.waiting` are waiting.
        case full
        /// `Limits.waitingPerClient` of this client's are waiting.
        case clientsShareTaken
        /// Its client hung up while it waited.
        case clientLeft
    }

    /// Who asks for a hash: the client's address (nil for none known) and
    /// whether it is still there.
    struct Requester: Sendable {
        let client: PeerAddress?
        let presence: ClientPresence?

        init(_ request: HTTPRequest) {
            client = request.client?.network
            presence = request.presence
        }

        init(client: PeerAddress?, presence: ClientPresence? = nil) {
            self.client = client
            self.presence = presence
        }
    }

    private struct Job {
        let presence: ClientPresence?
        /// Makes the hash and hands it to the waiting request.
        let run: @Sendable () -> Void
        /// Tells the waiting request its client left.
        let drop: @Sendable () -> Void
    }

    private struct State {
        var waiting: [PeerAddress?: [Job]] = [:]
        /// Clients with waiting hashes, the next to be served first.
        var turns: [PeerAddress?] = []
        var count = 0

        mutating func next() -> Job? {
            guard !turns.isEmpty else { return nil }
            let client = turns.removeFirst()
            var jobs = waiting[client] ?? []
            let job = jobs.removeFirst()
            count -= 1
            if jobs.isEmpty {
                waiting[client] = nil
            } else {
                waiting[client] = jobs
                turns.append(client)
            }
            return job
        }
    }

    let limits: Limits
    /// Filled by requests on every loop, emptied by the hashing thread.
    private let state = Mutex(State())
    private let thread = SerialThread(name: "passwords")

    init(limits: Limits) {
        self.limits = limits
    }

    /// Hashes waiting now.
    var waitingCount: Int { state.withLock { $0.count } }

    /// `work`'s result, made on the `passwords` thread in the requester's turn.
    func run<Value: Sendable>(for requester: Requester, _ work: @escaping @Sendable () -> Value) async throws(Refusal) -> Value {
        let result: Result<Value, Refusal> = await withCheckedContinuation { continuation in
            let job = Job(presence: requester.presence,
                          run: { continuation.resume(returning: .success(work())) },
                          drop: { continuation.resume(returning: .failure(.clientLeft)) })
            if let refusal = enqueue(job, from: requester.client) {
                continuation.resume(returning: .failure(refusal))
                return
            }
            thread.async { [self] in runNext() }
        }
        return try result.get()
    }

    private func enqueue(_ job: Job, from client: PeerAddress?) -> Refusal? {
        state.withLock { state in
            guard state.count < limits.waiting else { return .full }
            let clients = state.waiting[client, default: []]
            guard clients.count < limits.waitingPerClient else { return .clientsShareTaken }
            if clients.isEmpty { state.turns.append(client) }
            state.waiting[client, default: []].append(job)
            state.count += 1
            return nil
        }
    }

    /// One queued job per call: the one whose turn it is, not necessarily the
    /// one queued with the call.
    private func runNext() {
        guard let job = state.withLock({ $0.next() }) else { return }
        if job.presence?.hasLeft == true {
            job.drop()
        } else {
            job.run()
        }
    }
}
