import TailorLoop

extension Scenario {
    static let sendRoute = "POST /api/chats/:id/messages"
    static let readRoute = "POST /api/chats/:id/read"
    static let typingRoute = "POST /api/chats/:id/typing"
    static let placeOrderRoute = "POST /api/orders"
    static let payOrderRoute = "PATCH /api/orders/:id"

    /// The measured part: messages on an open-loop schedule and readers' GETs
    /// for the duration, then a wait until the streams have shown every message.
    /// Returns the seconds from the first message due to the last answer.
    func run() async -> Double {
        statistics.reset()
        let loopCount = group.loops.count
        let start = MonotonicClock.after(seconds: 0.05)
        let end = start + UInt64(settings.durationSeconds * 1e9)
        let series = IntervalSeries(start: start, lengthSeconds: settings.intervalSeconds)
        ledger.series.withLock { $0 = series }
        statistics.series.withLock { $0 = series }
        let sampler = Task(executorPreference: group.loops[0]) { await self.sample(series, start: start, end: end) }
        running.store(true, ordering: .releasing)
        await withTaskGroup(of: Void.self) { tasks in
            for user in users {
                tasks.addTask(executorPreference: user.loop) { await self.sendJobs(of: user) }
            }
            for (index, loop) in group.loops.enumerated() {
                tasks.addTask(executorPreference: loop) { await self.pace(loopIndex: index, loopCount: loopCount, start: start, end: end) }
            }
            for reader in 0..<settings.readers {
                let loop = group.loops[reader % loopCount]
                tasks.addTask(executorPreference: loop) { await self.read(as: reader, on: loop, start: start, end: end) }
            }
        }
        running.store(false, ordering: .releasing)
        sampler.cancel()
        let finished = MonotonicClock.now
        // Let the streams catch up with the last messages.
        let giveUp = MonotonicClock.after(seconds: settings.drainSeconds)
        while ledger.outstanding(hasStream: hasStream) > 0 && MonotonicClock.now < giveUp {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return Double(finished - start) / 1e9
    }

    /// At the end of each interval: the server's CPU over it, in all and per
    /// thread, its memory, and the sizes of its database and log.
    private func sample(_ series: IntervalSeries, start: UInt64, end: UInt64) async {
        let server = settings.serverPID.map(ProcessProbe.init(pid:))
        let length = UInt64(settings.intervalSeconds * 1e9)
        var boundary = start + length
        var cpu = server?.cpuSeconds ?? 0
        var threads = server?.threadCPUSeconds ?? [:]
        let seconds = settings.intervalSeconds
        let percent = { (spent: Double) in spent / seconds * 100 }
        while boundary <= end + length, !Task.isCancelled {
            let now = MonotonicClock.now
            if boundary > now { try? await Task.sleep(for: .nanoseconds(boundary - now)) }
            if Task.isCancelled { return }
            let cpuNow = server?.cpuSeconds ?? 0
            let threadsNow = server?.threadCPUSeconds ?? [:]
            series.sample(at: boundary, server: server, cpuPercent: server.map { _ in percent(cpuNow - cpu) },
                          threadCPUPercent: server.map { _ in ThreadLoad.spent(from: threads, to: threadsNow).mapValues(percent) },
                          database: settings.databasePath)
            cpu = cpuNow
            threads = threadsNow
            boundary += length
        }
    }

    /// Queues each message when it is due, for the senders on this loop. The
    /// schedule never waits for answers, so a slow server shows as latency, not
    /// as fewer requests (no coordinated omission).
    private func pace(loopIndex: Int, loopCount: Int, start: UInt64, end: UInt64) async {
        let interval = 1e9 / settings.rate
        var number = 0
        while true {
            let now = MonotonicClock.now
            while true {
                let due = start + UInt64(Double(number) * interval)
                if due >= end {
                    for user in users where user.index % loopCount == loopIndex { user.finish() }
                    return
                }
                if due > now { break }
                let sender = users[senderOrder[number % users.count]]
                if sender.index % loopCount == loopIndex {
                    ledger.scheduled(number, dueAt: due, recipient: sender.partner)
                    sender.enqueue(.message(number: number, dueAt: due))
                    // Every sender's tenth message, not every tenth message: each user's list changes.
                    if settings.changesOrders, (number / users.count) % ScenarioSettings.orderChangeEvery == 0 {
                        sender.enqueue(.orderChange(number: settings.ordersPerUser + number, dueAt: due))
                    }
                }
                number += 1
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// One user's requests, in order on their keep-alive connection. Latency
    /// counts from when a request was due, so time spent queued behind a slow
    /// answer is counted too.
    private func sendJobs(of user: SimulatedUser) async {
        while let job = await user.next() {
            switch job {
            case .message(let number, let dueAt):
                let json = #"{"text":"load \#(number)","clientId":"m\#(number)"}"#
                if settings.typing {
                    _ = await request(user.connection, "POST", "/api/chats/\(user.chatID)/typing", token: user.token, json: "{}",
                                      route: Self.typingRoute, dueAt: dueAt, expect: 204)
                }
                if await request(user.connection, "POST", "/api/chats/\(user.chatID)/messages", token: user.token, json: json,
                                 route: Self.sendRoute, dueAt: dueAt, expect: 201) != nil {
                    ledger.accepted(number, at: MonotonicClock.now)
                }
            case .markRead(let askedAt):
                _ = await request(user.connection, "POST", "/api/chats/\(user.chatID)/read", token: user.token, json: "{}",
                                  route: Self.readRoute, dueAt: askedAt, expect: 200)
                user.markReadQueued = false
            case .orderChange(let number, let dueAt):
                // A new order at the top of the list, then paid: a row added, then a row changed.
                guard let placed = await request(user.connection, "POST", "/api/orders", token: user.token, json: Self.order(number, of: user),
                                                 route: Self.placeOrderRoute, dueAt: dueAt, expect: 201),
                      let id = placed.field("id") else { continue }
                _ = await request(user.connection, "PATCH", "/api/orders/\(id)", token: user.token, json: #"{"status":"paid"}"#,
                                  route: Self.payOrderRoute, dueAt: dueAt, expect: 200)
            }
        }
    }

    /// A reader polls its chat list and its orders as a client with a cache
    /// does: with `If-None-Match`, so an unchanged list is a bodiless 304.
    private func read(as reader: Int, on loop: EventLoop, start: UInt64, end: UInt64) async {
        let user = users[reader % users.count]
        let connection = HTTPClientConnection(target: user.target, loop: loop)
        var etags: [String: String] = [:]
        let interval = UInt64(settings.readerInterval * 1e9)
        // Readers spread over the first interval rather than all at once.
        var due = start + interval * UInt64(reader) / UInt64(max(settings.readers, 1))
        var turn = 0
        while due < end {
            let now = MonotonicClock.now
            if due > now { try? await Task.sleep(for: .nanoseconds(due - now)) }
            let path = turn % 2 == 0 ? "/api/chats" : "/api/orders"
            let headers = etags[path].map { "If-None-Match: \($0)\r\n" } ?? ""
            if let response = await request(connection, "GET", path, token: user.token, headers: headers,
                                            route: "GET \(path)", dueAt: due, expect: 200) {
                if response.status == 304 { statistics.recordNotModified() }
                if let etag = response.etag { etags[path] = etag }
            }
            turn += 1
            due += interval
        }
    }

    /// Sends one request and records its latency, or its error by kind.
    private func request(_ connection: HTTPClientConnection, _ method: String, _ path: String, token: String,
                         json: String? = nil, headers: String = "", route: String, dueAt: UInt64, expect: Int) async -> ClientResponse? {
        do {
            let response = try await connection.send(method, path, token: token, json: json, headers: headers, timeout: settings.requestTimeout)
            let now = MonotonicClock.now
            statistics.record(route: route, nanoseconds: now &- dueAt, at: now)
            guard response.status == expect || (response.status == 304 && method == "GET") else {
                statistics.recordError("status \(response.status)", route: route)
                return nil
            }
            return response
        } catch HTTPClientConnection.Failure.timedOut {
            statistics.recordError("timeout", route: route)
        } catch {
            statistics.recordError("connection", route: route)
        }
        return nil
    }
}
