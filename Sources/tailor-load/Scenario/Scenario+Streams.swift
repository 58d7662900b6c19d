import TailorLoop

extension Scenario {
    /// The text of message `number`: the recipient's stream finds the number in
    /// the chat's view model, or in a notification, right after this prefix.
    static let messagePrefix = Array(#""text":"load "#.utf8)

    /// Opens the subscribers' streams a ramp step at a time, each having shown
    /// its initial view models before the run begins.
    func openStreams() async throws {
        let subscribers = Array(users.prefix(settings.subscribers))
        for start in stride(from: 0, to: subscribers.count, by: Self.rampStep) {
            let step = subscribers[start..<min(start + Self.rampStep, subscribers.count)]
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for user in step {
                    tasks.addTask(executorPreference: user.loop) {
                        let stream = try EventStreamClient(target: user.target, loop: user.loop, token: user.token, topics: user.topics)
                        let status = try await stream.open(timeout: self.settings.requestTimeout)
                        guard status == 200 else { throw ScenarioError("a stream was refused with \(status)") }
                        user.stream = stream
                        // The reader lives on past this step, on the user's loop.
                        Task(executorPreference: user.loop) { await self.follow(user, stream) }
                    }
                }
                try await tasks.waitForAll()
            }
        }
        // Each stream starts with its three view models: chats, badge and the chat.
        let giveUp = MonotonicClock.after(seconds: settings.requestTimeout)
        while MonotonicClock.now < giveUp {
            let ready = await countOnLoops { $0.latest.count >= 3 }
            if ready == subscribers.count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ScenarioError("not every stream showed its initial view models")
    }

    /// Reads one user's stream until it ends.
    func follow(_ user: SimulatedUser, _ stream: EventStreamClient) async {
        await stream.read { event in
            let now = MonotonicClock.now
            statistics.recordEvent()
            switch event.name {
            case "chat", "notification":
                ledger.seen(JSONScan.numbers(after: Self.messagePrefix, in: event.data), by: user.index, at: now)
                if event.name == "chat" {
                    user.latest["chat"] = Array(event.data)
                    if (JSONScan.lastInteger(named: "unreadMessageCount", in: event.data) ?? 0) > 0 { askToMarkRead(user, at: now) }
                }
            default:
                user.latest[event.name] = Array(event.data)
            }
        }
    }

    /// A person with the chat open marks it read as messages come, at most
    /// once per `markReadInterval`.
    private func askToMarkRead(_ user: SimulatedUser, at now: UInt64) {
        guard isRunning, !user.markReadQueued,
              now >= user.lastMarkRead + UInt64(settings.markReadInterval * 1e9) else { return }
        user.markReadQueued = true
        user.lastMarkRead = now
        user.enqueue(.markRead(askedAt: now))
    }

    /// How many users satisfy `condition`, each asked on its own loop.
    func countOnLoops(_ condition: @escaping @Sendable (SimulatedUser) -> Bool) async -> Int {
        await withTaskGroup(of: Bool.self) { tasks in
            for user in users { tasks.addTask(executorPreference: user.loop) { condition(user) } }
            var count = 0
            for await yes in tasks where yes { count += 1 }
            return count
        }
    }
}
