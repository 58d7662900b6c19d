import TailorLoop

extension Scenario {
    struct FinalCheck: Sendable {
        var checked = 0
        var stale = 0
        var examples: [String] = []
    }

    /// Every subscriber's last `chats`, `badge` and `chat` events (and
    /// `orders`, when the streams follow it) must be the
    /// very bytes the server answers now: nothing a stream missed is hidden by
    /// a later event. A mismatch is asked again for a few seconds, in case an
    /// event is still on its way.
    func checkFinalViewModels() async -> FinalCheck {
        var pending = Array(users.prefix(settings.subscribers))
        var result = FinalCheck()
        for attempt in 0..<10 {
            var stillStale: [SimulatedUser] = []
            var examples: [String] = []
            for start in stride(from: 0, to: pending.count, by: Self.rampStep) {
                let step = Array(pending[start..<min(start + Self.rampStep, pending.count)])
                let outcomes = await withTaskGroup(of: (SimulatedUser, String?).self) { tasks in
                    for user in step {
                        tasks.addTask(executorPreference: user.loop) { (user, await self.mismatch(of: user)) }
                    }
                    var outcomes: [(SimulatedUser, String?)] = []
                    for await outcome in tasks { outcomes.append(outcome) }
                    return outcomes
                }
                for (user, problem) in outcomes {
                    if let problem {
                        stillStale.append(user)
                        if examples.count < 3 { examples.append(problem) }
                    }
                }
            }
            if attempt == 0 { result.checked = pending.count * (settings.changesOrders ? 4 : 3) }
            pending = stillStale
            result.examples = examples
            if pending.isEmpty { break }
            try? await Task.sleep(for: .milliseconds(500))
        }
        result.stale = pending.count
        return result
    }

    /// What differs between the user's last events and the server's answers, if anything.
    private func mismatch(of user: SimulatedUser) async -> String? {
        var views = [("chats", "/api/chats"), ("badge", "/api/badge"), ("chat", "/api/chats/\(user.chatID)")]
        if user.followsOrders { views.append(("orders", "/api/orders")) }
        for (name, path) in views {
            guard let answer = try? await user.connection.send("GET", path, token: user.token, timeout: settings.requestTimeout),
                  answer.status == 200 else { return "\(user.name): GET \(path) failed" }
            if user.shown(name) != answer.body {
                return "\(user.name): the stream's last \(name) differs from GET \(path)"
            }
        }
        return nil
    }

    /// Closes every stream, each on its loop.
    func closeStreams() async {
        await withTaskGroup(of: Void.self) { tasks in
            for user in users.prefix(settings.subscribers) {
                tasks.addTask(executorPreference: user.loop) { user.stream?.close() }
            }
        }
    }
}
