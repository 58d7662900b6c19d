import TailorLoop
import TailorWire

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
                        let query = user.topics + (self.settings.patches ? "&patch=json" : "")
                        let stream = try EventStreamClient(target: user.target, loop: user.loop, token: user.token, topics: query)
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
        // Each stream starts with its view models: chats, badge and the chat (and the orders list).
        let giveUp = MonotonicClock.after(seconds: settings.requestTimeout)
        let initial = settings.changesOrders ? 4 : 3
        while MonotonicClock.now < giveUp {
            let ready = await countOnLoops { $0.latest.count >= initial }
            if ready == subscribers.count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ScenarioError("not every stream showed its initial view models")
    }

    /// Reads one user's stream until it ends.
    func follow(_ user: SimulatedUser, _ stream: EventStreamClient) async {
        await stream.read { event in
            let now = MonotonicClock.now
            statistics.recordEvent(named: event.name, bytes: event.data.count)
            switch event.name {
            case StreamTopic.notificationEventName:
                ledger.seen(JSONScan.numbers(after: Self.messagePrefix, in: event.data[...]), by: user.index, at: now)
            case let patched where StreamTopic.isPatch(eventName: patched):
                let name = String(patched.dropLast(StreamTopic.patchSuffix.count))
                // A new message is an `add` whose value is its JSON.
                if name == "chat" { ledger.seen(JSONScan.numbers(after: Self.messagePrefix, in: event.data[...]), by: user.index, at: now) }
                apply(event, to: name, of: user)
                if name == "chat", let unread = user.held["chat"]?.document["unreadMessageCount"]?.text.flatMap(Int.init), unread > 0 {
                    askToMarkRead(user, at: now)
                }
            default:
                user.latest[event.name] = event.data
                if settings.patches { hold(event, as: event.name, for: user) }
                if event.name == "chat" {
                    ledger.seen(JSONScan.numbers(after: Self.messagePrefix, in: event.data[...]), by: user.index, at: now)
                    if (JSONScan.lastInteger(named: "unreadMessageCount", in: event.data[...]) ?? 0) > 0 { askToMarkRead(user, at: now) }
                }
            }
        }
    }

    /// Keeps a whole view model for the patches that follow it.
    private func hold(_ event: EventStreamEvent, as name: String, for user: SimulatedUser) {
        do {
            user.held[name] = (event.lastEventID, try PatchableJSON.parse(event.data[...]))
        } catch {
            statistics.recordError("unreadable view model (\(error))", route: "stream \(name)")
            user.held[name] = nil
        }
    }

    /// Applies a patch to the view model it names as its base. One that does
    /// not apply is an error, and the view model is dropped, so that the final
    /// check finds the stream's view stale.
    private func apply(_ event: EventStreamEvent, to name: String, of user: SimulatedUser) {
        do {
            let data = try PatchableJSON.parse(event.data[...])
            guard var held = user.held[name], let base = data["base"]?.text, base == held.id, let patch = data["patch"] else {
                throw PatchableJSON.Failure(description: "not for the version held")
            }
            try held.document.apply(patch: patch)
            held.id = event.lastEventID
            user.held[name] = held
        } catch {
            statistics.recordError("patch not applied (\(error))", route: "stream \(name)")
            user.held[name] = nil
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
