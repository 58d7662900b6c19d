import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TailorWire

/// The client's one event stream, with the union of the topics being
/// followed. It applies patches, hands each topic's new values to its
/// followers (never the same value twice in a row), keeps them in the store
/// with their position, reconnects after a drop with backoff and jitter from
/// the last event id, and opens a new stream when the topics change.
actor LiveUpdates {
    struct Follower: Sendable {
        let deliver: @Sendable (JSONValue) -> Void
        let fail: @Sendable (TailorError) -> Void
    }

    private let api: APIConnection
    private let store: DiskStore
    /// Called when a stream opens: the server answers again.
    private let opened: @Sendable () async -> Void
    private var followers: [String: [UUID: Follower]] = [:]
    /// Who hears notifications: messages in chats no stream of the user shows.
    private var listeners: [UUID: @Sendable (JSONValue) -> Void] = [:]
    /// The last value handed out per topic: the same one again is not.
    private var delivered: [String: JSONValue] = [:]
    /// Per topic, the version a patch must name as its base, on the current stream.
    private var held: [String: (id: String, value: JSONValue)] = [:]
    private var lastEventID: Int64?
    private var streamed: [String] = []
    private var connection: Task<Void, Never>?

    init(api: APIConnection, store: DiskStore, opened: @escaping @Sendable () async -> Void) {
        self.api = api
        self.store = store
        self.opened = opened
    }

    /// Follows `topic`: the value held (or stored) at once, then every change.
    func follow(_ topic: String, as id: UUID, _ follower: Follower) {
        followers[topic, default: [:]][id] = follower
        if let value = delivered[topic] {
            follower.deliver(value)
            return
        }
        let alone = followers.count == 1
        if let kept = store.view(topic) {
            delivered[topic] = kept.value
            follower.deliver(kept.value)
            // The stored copy was current at its position: resume from there.
            reconnect(from: kept.position, alone: alone)
        } else {
            // Nothing known of it: the next stream sends every topic whole.
            reconnect(from: nil, alone: alone)
        }
    }

    /// Hears each notification that comes on the stream while topics are followed.
    func listen(as id: UUID, _ listener: @escaping @Sendable (JSONValue) -> Void) {
        listeners[id] = listener
    }

    func stopListening(as id: UUID) {
        listeners[id] = nil
    }

    func stop(_ topic: String, as id: UUID) {
        followers[topic]?[id] = nil
        if followers[topic]?.isEmpty == true {
            followers[topic] = nil
            delivered[topic] = nil
        }
        if followers.isEmpty {
            connection?.cancel()
            connection = nil
            streamed = []
        } else if followers.keys.sorted() != streamed {
            reconnect(from: lastEventID, alone: false)
        }
    }

    /// A new stream for the topics followed now: from `position` when the
    /// topic it is for is `alone`, else from it or the last event seen,
    /// whichever is older (nil, nothing known, is oldest of all).
    private func reconnect(from position: Int64?, alone: Bool) {
        if alone {
            lastEventID = position
        } else if let position, let last = lastEventID {
            lastEventID = min(last, position)
        } else {
            lastEventID = nil
        }
        connection?.cancel()
        streamed = followers.keys.sorted()
        held = [:]
        connection = Task { await self.run() }
    }

    private func run() async {
        var failures = 0
        while !Task.isCancelled {
            let topics = followers.keys.sorted()
            guard !topics.isEmpty else { return }
            var query = [URLQueryItem(name: "topics", value: topics.joined(separator: ",")), URLQueryItem(name: "patch", value: "json")]
            if let lastEventID { query.append(URLQueryItem(name: "lastEventId", value: String(lastEventID))) }
            var request = api.request("GET", "/api/events", query: query)
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            let connection = EventSourceConnection(request: request)
            connection.start()
            do {
                for try await item in connection.items {
                    if Task.isCancelled { break }
                    switch item {
                    case .opened:
                        failures = 0
                        Task { await opened() }
                    case .event(let event):
                        if !receive(event) {
                            // A patch that does not fit: everything whole again.
                            lastEventID = nil
                            held = [:]
                            connection.cancel()
                        }
                    }
                }
            } catch let error as TailorError where error.status == 401 || error.status == 404 {
                // The session ended, or a topic is not the user's: nothing to retry.
                if error.status == 401 { api.unauthorized() }
                for follower in followers.values.flatMap(\.values) { follower.fail(error) }
                followers = [:]
                return
            } catch {
                // Unreachable or dropped: tried again below.
            }
            // A stream left early (cancelled, a patch that did not fit) stops its request.
            connection.cancel()
            // Replaced by a newer stream: what is held now is that stream's.
            if Task.isCancelled { return }
            held = [:]
            failures += 1
            do {
                try await Task.sleep(for: .milliseconds(Self.retryDelay(failures)))
            } catch {
                return
            }
        }
    }

    /// Takes one event; false when a patch does not fit what is held.
    private func receive(_ event: EventStreamEvent) -> Bool {
        let json: JSONValue
        do {
            json = try JSONValue.parse(Data(event.data))
        } catch {
            // Not JSON: not a view model the server sends; nothing to show.
            return true
        }
        if event.name == StreamTopic.notificationEventName {
            for listener in listeners.values { listener(json) }
            return true
        }
        let topic: String
        let value: JSONValue
        if StreamTopic.isPatch(eventName: event.name) {
            guard case .string(let patchedTopic)? = json["topic"], let base = json["base"], let operations = json["patch"],
                  let kept = held[patchedTopic], kept.id == Self.text(of: base) else { return false }
            do {
                (topic, value) = (patchedTopic, try JSONPatch(operations).applied(to: kept.value))
            } catch {
                return false
            }
        } else {
            let id: String? = if case .string(let id)? = json["id"] { id } else { nil }
            topic = StreamTopic(eventName: event.name, id: id)?.name ?? event.name
            value = json
        }
        held[topic] = (event.lastEventID, value)
        let position = Int64(event.lastEventID)
        if let position { lastEventID = max(lastEventID ?? position, position) }
        guard delivered[topic] != value, let followers = followers[topic] else { return true }
        delivered[topic] = value
        // A value that cannot be stored is still shown; the next one is stored again.
        _ = Result { try store.keep(value, position: position, topic: topic) }
        for follower in followers.values { follower.deliver(value) }
        return true
    }

    private static func text(of base: JSONValue) -> String? {
        switch base {
        case .integer(let number): String(number)
        case .string(let text): text
        default: nil
        }
    }

    /// Milliseconds before the `attempt`th reconnection: doubling from half a
    /// second to 30 s, each drawn from its upper half, so that many clients
    /// do not come back at once.
    static func retryDelay(_ attempt: Int) -> Int {
        let ceiling = min(30_000, 500 << min(attempt - 1, 10))
        return ceiling / 2 + Int.random(in: 0...(ceiling / 2))
    }
}
