import Foundation
import Testing

/// Heap allocations per request and per delivered event, counted in a real
/// `tailor` process by a malloc counter preloaded into it
/// (`libTailorAllocationCounter.so`, built beside the tests). A budget that
/// fails means a change allocates more on a hot path: look at why before
/// raising it. The budgets are for the debug build the tests run on (its
/// unspecialized generics allocate far more than a release build: a cached
/// GET measured 406 allocations here and none in release), about 5% above what
/// was measured when they were set (steady to ±1 over runs), so that the
/// timers' background work does not fail them.
@Suite struct AllocationBudgetTests {
    /// A cached `GET /api/orders` on a keep-alive connection, answer read.
    static let cachedGetBudget = 426
    /// A message sent and its chat screen delivered to the other side's stream.
    static let deliveredMessageBudget = 1_860

    /// A `tailor` server with the counter preloaded, and the count it keeps.
    final class CountedServer {
        let server: ShutdownTests.RunningServer
        let countFile = FileManager.default.temporaryDirectory.appendingPathComponent("tailor-allocations-\(UUID().uuidString)")

        init(arguments: [String] = []) throws {
            let counter = ShutdownTests.executable.deletingLastPathComponent().appendingPathComponent("libTailorAllocationCounter.so")
            guard FileManager.default.fileExists(atPath: counter.path) else {
                throw RawClient.Failure(description: "\(counter.path) is missing: build with `swift build --build-tests`")
            }
            server = try ShutdownTests.RunningServer(arguments: arguments, environment: ["LD_PRELOAD": counter.path,
                                                                   "TAILOR_ALLOCATION_COUNT_FILE": countFile.path])
        }

        deinit {
            server.process.terminate()
            server.process.waitUntilExit()
            try? FileManager.default.removeItem(at: countFile)
        }

        /// Allocations the server made so far.
        func count() throws -> UInt64 {
            let bytes = try Data(contentsOf: countFile)
            guard bytes.count == 8 else { throw RawClient.Failure(description: "the count file holds \(bytes.count) bytes") }
            return bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        }

        /// Allocations per run of `work`, over `times` runs after `warmUp` runs.
        func perRun(times: Int, warmUp: Int, _ work: () throws -> Void) throws -> Double {
            for _ in 0..<warmUp { try work() }
            let before = try count()
            for _ in 0..<times { try work() }
            return Double(try count() - before) / Double(times)
        }
    }

    @Test func aCachedGetStaysWithinItsAllocationBudget() throws {
        let counted = try CountedServer()
        let alice = try APIClient(port: counted.server.port)
        let signUp = try alice.send("POST", "/api/users", json: #"{"name":"alice"}"#)
        alice.token = try #require(signUp.json["token"] as? String)
        let perGet = try counted.perRun(times: 1_000, warmUp: 200) {
            guard try alice.get("/api/orders").status == 200 else { throw RawClient.Failure(description: "GET failed") }
        }
        #expect(perGet <= Double(Self.cachedGetBudget), "allocations per cached GET: \(perGet)")
    }

    @Test func aDeliveredMessageStaysWithinItsAllocationBudget() throws {
        // More messages than one user may send at once otherwise.
        let counted = try CountedServer(arguments: ["--write-burst", "1000"])
        let alice = try APIClient.signedUp("alice", port: counted.server.port)
        let bob = try APIClient.signedUp("bob", port: counted.server.port)
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let stream = try SSEClient(port: counted.server.port, token: bob.token, topics: "chat:\(chatID)")
        _ = try stream.next()
        var sent = 0
        // One message at a time, each read from the stream before the next goes.
        let perMessage = try counted.perRun(times: 200, warmUp: 60) {
            sent += 1
            let text = "message \(sent)"
            guard try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"\#(text)"}"#).status == 201 else {
                throw RawClient.Failure(description: "send failed")
            }
            _ = try stream.next { (($0.json["messages"] as? [[String: Any]])?.last?["text"] as? String) == text }
        }
        #expect(perMessage <= Double(Self.deliveredMessageBudget), "allocations per delivered message: \(perMessage)")
    }
}
