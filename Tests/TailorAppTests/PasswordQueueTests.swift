import Dispatch
import Synchronization
@testable import TailorApp
@testable import TailorDomain
import TailorHTTP
import TailorLoop
@testable import TailorStreams
@testable import TailorViews
import Testing

/// The queue in front of the `passwords` thread alone, with work that records
/// its turn instead of hashing: bounded in all and per client, clients in
/// turn, and work for a client that left never done.
@Suite struct PasswordQueueTests {
    /// What ran, in order.
    private final class Done: Sendable {
        private let labels = Mutex<[String]>([])
        func append(_ label: String) { labels.withLock { $0.append(label) } }
        var all: [String] { labels.withLock { $0 } }
    }

    private let alice = PeerAddress(text: "192.0.2.1")
    private let bob = PeerAddress(text: "192.0.2.2")

    /// A queue whose thread is held by a first job until `release` is signalled.
    private func heldQueue(_ limits: PasswordQueue.Limits) async -> (PasswordQueue, release: DispatchSemaphore) {
        let queue = PasswordQueue(limits: limits)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        Task {
            _ = try await queue.run(for: PasswordQueue.Requester(client: PeerAddress(text: "192.0.2.99"))) {
                started.signal()
                release.wait()
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { started.wait(); continuation.resume() }
        }
        return (queue, release)
    }

    /// Queues work for `requester` that notes `label` when it runs, and waits
    /// until it is queued behind the `waiting` jobs before it. Its task tells
    /// why it was refused, or nil when it ran.
    private func queue(_ label: String, for requester: PasswordQueue.Requester, on queue: PasswordQueue, after waiting: Int,
                       into done: Done) async -> Task<PasswordQueue.Refusal?, Never> {
        let task = Task { () -> PasswordQueue.Refusal? in
            do throws(PasswordQueue.Refusal) {
                try await queue.run(for: requester) { done.append(label) }
                return nil
            } catch {
                return error
            }
        }
        while queue.waitingCount == waiting { await Task.yield() }
        return task
    }

    @Test func clientsTakeTurnsWhateverTheyQueued() async throws {
        let (passwords, release) = await heldQueue(PasswordQueue.Limits())
        let done = Done()
        let a1 = await queue("alice 1", for: PasswordQueue.Requester(client: alice), on: passwords, after: 0, into: done)
        let a2 = await queue("alice 2", for: PasswordQueue.Requester(client: alice), on: passwords, after: 1, into: done)
        let b1 = await queue("bob 1", for: PasswordQueue.Requester(client: bob), on: passwords, after: 2, into: done)
        release.signal()
        for task in [a1, a2, b1] { _ = await task.value }
        #expect(done.all == ["alice 1", "bob 1", "alice 2"])
    }

    @Test func waitingIsBoundedPerClientAndInAll() async throws {
        var limits = PasswordQueue.Limits()
        limits.waiting = 3
        limits.waitingPerClient = 2
        let (passwords, release) = await heldQueue(limits)
        let done = Done()
        var tasks = [await queue("alice 1", for: PasswordQueue.Requester(client: alice), on: passwords, after: 0, into: done),
                     await queue("alice 2", for: PasswordQueue.Requester(client: alice), on: passwords, after: 1, into: done)]
        await #expect(throws: PasswordQueue.Refusal.clientsShareTaken) { try await passwords.run(for: PasswordQueue.Requester(client: alice)) {} }
        tasks.append(await queue("bob 1", for: PasswordQueue.Requester(client: bob), on: passwords, after: 2, into: done))
        await #expect(throws: PasswordQueue.Refusal.full) { try await passwords.run(for: PasswordQueue.Requester(client: PeerAddress(text: "192.0.2.3"))) {} }
        release.signal()
        for task in tasks { #expect(await task.value == nil) }
    }

    @Test func workForAClientThatLeftIsNotDone() async throws {
        let (passwords, release) = await heldQueue(PasswordQueue.Limits())
        let done = Done()
        let presence = ClientPresence()
        let gone = await queue("gone", for: PasswordQueue.Requester(client: alice, presence: presence), on: passwords, after: 0, into: done)
        let stays = await queue("stays", for: PasswordQueue.Requester(client: bob, presence: ClientPresence()), on: passwords, after: 1, into: done)
        presence.noteLeft()
        release.signal()
        #expect(await gone.value == .clientLeft)
        #expect(await stays.value == nil)
        #expect(done.all == ["stays"])
    }
}
