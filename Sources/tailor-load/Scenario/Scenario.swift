import Synchronization
import TailorLoop

/// The whole-system scenario: users sign up, pair into chats, follow their
/// screens over event streams, and send messages on an open-loop schedule while
/// readers poll their lists; then every view model a stream showed last is
/// compared with what the server answers now.
final class Scenario: Sendable {
    let settings: ScenarioSettings
    /// The servers; users are shared out over them in turn, so that the two
    /// users of a chat speak to different servers when there are several
    /// (or to one, with `chatsTogether`).
    let targets: [LoadTarget]
    let group: EventLoopGroup
    let users: [SimulatedUser]
    let statistics = LoadStatistics()
    let ledger: MessageLedger
    /// Senders in the order the schedule takes them: a shuffle by the seed.
    let senderOrder: [Int]
    /// True while messages are being sent: only then do streams ask to mark read.
    let running = Atomic<Bool>(false)
    var isRunning: Bool { running.load(ordering: .acquiring) }

    /// New connections opened at once while setting up: a gradual ramp, so the
    /// server's listen backlog never overflows.
    static let rampStep = 200

    init(settings: ScenarioSettings, targets: [LoadTarget], group: EventLoopGroup) {
        self.settings = settings
        self.targets = targets
        self.group = group
        let loops = group.loops
        users = (0..<settings.users).map { index in
            SimulatedUser(index: index, name: "load\(settings.seed % 1_000_000)_\(index)",
                          loop: loops[index % loops.count],
                          target: targets[settings.server(ofUser: index, servers: targets.count)],
                          followsOrders: settings.changesOrders)
        }
        var random = SeededRandom(seed: settings.seed)
        senderOrder = (0..<settings.users).shuffled(using: &random)
        ledger = MessageLedger(capacity: Int(settings.rate * settings.durationSeconds) + 16)
    }

    func hasStream(_ user: Int) -> Bool { user >= 0 && user < settings.subscribers }

    // MARK: Setup

    /// Runs `body` for every user on the user's loop, `rampStep` at a time.
    func forEachUser(_ body: @escaping @Sendable (SimulatedUser) async throws -> Void) async throws {
        for start in stride(from: 0, to: users.count, by: Self.rampStep) {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for user in users[start..<min(start + Self.rampStep, users.count)] {
                    tasks.addTask(executorPreference: user.loop) { try await body(user) }
                }
                try await tasks.waitForAll()
            }
        }
    }

    func setUp() async throws {
        try await forEachUser { user in
            let answer = try await self.expect(201, user.connection.send("POST", "/api/users", token: nil, json: #"{"name":"\#(user.name)"}"#, timeout: self.settings.requestTimeout), "sign up \(user.name)")
            guard let token = answer.field("token") else { throw ScenarioError("sign-up of \(user.name) gave no token") }
            user.token = token
        }
        // Pairs: 0 with 1, 2 with 3, …; an odd last one talks with user 0.
        for user in users {
            user.partner = user.index % 2 == 0 ? (user.index + 1 < users.count ? user.index + 1 : 0) : user.index - 1
        }
        try await forEachUser { user in
            guard user.index % 2 == 0 else { return }
            let partner = self.users[user.partner]
            let chat = try await self.expect(201, user.connection.send("POST", "/api/chats", token: user.token, json: #"{"contact":"\#(partner.name)"}"#, timeout: self.settings.requestTimeout), "open a chat")
            guard let id = chat.field("id") else { throw ScenarioError("a new chat had no id") }
            user.chatID = id
        }
        for user in users where user.chatID.isEmpty {
            user.chatID = users[user.partner].chatID
        }
        // Orders, so that readers' order lists have something in them (one each unless asked).
        try await forEachUser { user in
            for number in 0..<self.settings.ordersPerUser {
                _ = try await self.expect(201, user.connection.send("POST", "/api/orders", token: user.token, json: Self.order(number, of: user),
                                                                    timeout: self.settings.requestTimeout), "place an order")
            }
        }
        try await openOtherChats()
        try await openStreams()
    }

    /// An order's JSON: a few lines, as a shop's are.
    static func order(_ number: Int, of user: SimulatedUser) -> String {
        #"{"name":"Supplies \#(user.index)-\#(number)","items":[{"title":"Paper","quantity":2,"priceCents":450},"#
            + #"{"title":"Ink","quantity":1,"priceCents":1299},{"title":"Stamps \#(number)","quantity":\#(1 + number % 5),"priceCents":95}]}"#
    }

    private func expect(_ status: Int, _ response: ClientResponse, _ what: String) throws -> ClientResponse {
        guard response.status == status else { throw ScenarioError("\(what): \(response.status) \(response.text)") }
        return response
    }
}

struct ScenarioError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A small deterministic generator (SplitMix64), so `--seed` repeats a run's choices.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
