import Foundation
import TailorApp
import TailorTestSupport
import Testing

/// `GET /metrics`: Prometheus's text format, parsed here line by line as a
/// scraper would, with the figures moving as requests, streams and writes happen.
@Suite struct MetricsTests {
    /// One sample line: `name{label="value",…} number`.
    struct Sample: Hashable {
        let name: String
        let labels: [String: String]
    }

    static func scrape(_ app: TestApp) throws -> [Sample: Double] {
        let response = try app.client().get("/metrics")
        #expect(response.status == 200)
        #expect(response.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
        var samples: [Sample: Double] = [:]
        for line in String(decoding: response.body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                Issue.record("not a sample line: \(line)")
                continue
            }
            let series = line[..<space]
            var labels: [String: String] = [:]
            var name = String(series)
            if let open = series.firstIndex(of: "{"), series.hasSuffix("}") {
                name = String(series[..<open])
                for pair in series[series.index(after: open)..<series.index(before: series.endIndex)].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, parts[1].hasPrefix("\""), parts[1].hasSuffix("\"") else {
                        Issue.record("not a label: \(pair) in \(line)")
                        continue
                    }
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
            }
            samples[Sample(name: name, labels: labels)] = value
        }
        return samples
    }

    /// Scrapes until `condition` holds, for at most five seconds: the writer
    /// counts a batch once it has handed it on, maybe after the request's answer.
    static func scrape(_ app: TestApp, until condition: ([Sample: Double]) -> Bool) throws -> [Sample: Double] {
        var samples = try scrape(app)
        _ = try eventually {
            samples = try scrape(app)
            return condition(samples)
        }
        return samples
    }

    @Test func figuresMoveAsRequestsStreamsAndWritesHappen() throws {
        let app = try TestApp()
        let (alice, bob) = (try app.user("alice"), try app.user("bob"))
        let chatID = try #require(try alice.send("POST", "/api/chats", json: #"{"contact":"bob"}"#).json["id"] as? String)
        let before = try Self.scrape(app)
        func value(_ samples: [Sample: Double], _ name: String, _ labels: [String: String] = [:]) -> Double {
            samples[Sample(name: name, labels: labels)] ?? 0
        }

        let anonymous = try app.client()
        for _ in 0..<5 { _ = try anonymous.get("/healthz") }
        for _ in 0..<3 { try bob.send("GET", "/api/chats") }
        try alice.send("GET", "/api/chats/999999")
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "chats,badge,chat:\(chatID)")
        for _ in 0..<3 { _ = try stream.next() }
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"counted"}"#)
        _ = try stream.next(where: { $0.name == "chat" })

        let after = try Self.scrape(app) { value($0, "tailor_writer_batch_events_count") > value(before, "tailor_writer_batch_events_count") }
        let healthz = ["route": "/healthz", "status": "2xx"]
        #expect(value(after, "tailor_http_requests_total", healthz) - value(before, "tailor_http_requests_total", healthz) == 5)
        #expect(value(after, "tailor_http_requests_total", ["route": "/api/chats/{id}", "status": "4xx"]) >= 1)
        #expect(value(after, "tailor_http_request_seconds_count", ["route": "/api/chats"]) >= 3)
        #expect(value(after, "tailor_http_request_seconds_bucket", ["route": "/healthz", "le": "+Inf"]) >= 5)
        #expect(value(after, "tailor_streams_open") == 1)
        #expect(value(after, "tailor_stream_topics_followed") == 3)
        #expect(value(after, "tailor_connections_open") >= 2)
        #expect(value(after, "tailor_stream_events_published_total") > value(before, "tailor_stream_events_published_total"))
        #expect(value(after, "tailor_writer_batch_seconds_count") > value(before, "tailor_writer_batch_seconds_count"))
        #expect(value(after, "tailor_writer_batch_events_count") > value(before, "tailor_writer_batch_events_count"))
        #expect(value(after, "tailor_view_cache_hits_total") + value(after, "tailor_view_cache_misses_total") > 0)
        #expect(value(after, "tailor_sqlite_log_frames") > 0, "the message's commit is in the log")
        // The message kept alice's and bob's chat, changed in place since.
        #expect(value(after, "tailor_kept_users") == 2)
        #expect(value(after, "tailor_kept_chats") == 1)
        #expect(value(after, "tailor_kept_chat_bytes") > 0 && value(after, "tailor_kept_chat_bytes") < 10_000)
        #expect(after.keys.contains(Sample(name: "tailor_kept_users_let_go_total", labels: [:])))
        #expect(value(after, "process_resident_memory_bytes") > 1_000_000)
        #expect(value(after, "process_open_fds") > 3)
        // The process's figures by Prometheus's own names.
        #expect(value(after, "process_cpu_seconds_total") > 0)
        #expect(abs(value(after, "process_start_time_seconds") - Date().timeIntervalSince1970) < 600)
        #expect(value(after, "tailor_build_info", ["version": TailorVersion.number]) == 1)
        // Every figure says what it means.
        let text = String(decoding: try app.client().get("/metrics").body, as: UTF8.self).split(separator: "\n")
        let typed = Set(text.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] })
        let helped = Set(text.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] })
        #expect(!typed.isEmpty && typed == helped, "\(typed.subtracting(helped))")
        // No user's name or id is a label anywhere.
        #expect(!after.keys.contains { $0.labels.values.contains { $0.contains("alice") || $0.contains("bob") } })
        #expect(!after.keys.contains { $0.labels["route"]?.split(separator: "/").contains(Substring(chatID)) == true })
    }

    /// After each commit the writer rests `--commit-delay`: two messages sent
    /// meanwhile share one commit. Counted as batches of more than one event
    /// (the histogram's count past its bucket of one), which an event of the
    /// server's own that lands alone in a batch leaves as it is.
    @Test func messagesCloseTogetherShareOneCommit() throws {
        let app = try TestApp { $0.commitDelay = .seconds(1) }
        let (alice, _, chatID) = try app.aliceAndBobInAChat()
        func batches(_ samples: [Sample: Double]) -> (shared: Double, events: Double) {
            let count = samples[Sample(name: "tailor_writer_batch_events_count", labels: [:])] ?? 0
            let alone = samples[Sample(name: "tailor_writer_batch_events_bucket", labels: ["le": "1.0"])] ?? 0
            return (count - alone, samples[Sample(name: "tailor_writer_batch_events_sum", labels: [:])] ?? 0)
        }
        func message(_ text: String) -> String {
            let body = #"{"text":"\#(text)"}"#
            return "POST /api/chats/\(chatID)/messages HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(alice.token!)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        let first = try app.client(as: alice)
        let second = try app.client(as: alice)
        // Answered once committed: the writer rests from here on.
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"committed"}"#)
        let before = try batches(Self.scrape(app))
        try first.connection.send(message("close behind"))
        try second.connection.send(message("closer still"))
        #expect(try first.connection.readResponse().status == 201)
        #expect(try second.connection.readResponse().status == 201)
        let after = try batches(Self.scrape(app) { batches($0).events >= before.events + 2 })
        #expect(after.shared - before.shared >= 1, "the last two messages shared no commit")
    }

    /// An event is counted as published when some stream gets it: a message's
    /// banner for a recipient whose only stream shows the chat is made for none.
    @Test func aNotificationNoStreamTakesIsNotCountedAsPublished() throws {
        let app = try TestApp()
        let (alice, bob, chatID) = try app.aliceAndBobInAChat()
        let stream = try SSEClient(port: app.port, token: bob.token, topics: "chat:\(chatID)")
        _ = try stream.next()
        let published = Sample(name: "tailor_stream_events_published_total", labels: [:])
        let before = try Self.scrape(app)[published] ?? 0
        try alice.send("POST", "/api/chats/\(chatID)/messages", json: #"{"text":"on the screen"}"#)
        _ = try stream.next(where: { $0.name == "chat" })
        // Counted before the pass hands its events to the streams.
        #expect(try Self.scrape(app)[published] ?? 0 == before + 1)
    }
}
