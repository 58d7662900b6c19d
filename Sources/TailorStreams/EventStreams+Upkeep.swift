import TailorDomain
import TailorViews

/// Upkeep of the open streams: ending some, asking what they show, heartbeats, shutdown.
extension EventStreams {
    /// Ends the streams opened with the session whose token hash this is: it
    /// was signed out, revoked, or ended by a new password.
    package func endStreams(ofSession tokenHash: [UInt8]) {
        let ended = fromEveryLane { state in state.subscribers.all.filter { $0.session == tokenHash } }
        for subscriber in ended { subscriber.end() }
    }

    /// The users with a stream open here.
    package var users: Set<Int> {
        Set(fromEveryLane { state in state.subscribers.all.map(\.user) })
    }

    /// Ends every stream of `user`: their account was disabled.
    package func endStreams(ofUser user: Int) {
        let ended = withState(of: user) { state in Array(state.subscribers.streams(of: user)) }
        for subscriber in ended { subscriber.end() }
    }

    /// Whether one of `user`'s streams shows the chat's latest messages: they
    /// see a message there as it comes, and need no push of it.
    package func isShowing(chat: Int, to user: Int) -> Bool {
        withState(of: user) { state in state.subscribers.followedTopics(of: user).contains(.chat(id: chat, page: .latest)) }
    }

    /// Every followed view model anew, for when their date texts change at
    /// midnight, through the lanes.
    package func republishAll() {
        rebuild(followedTopics())
    }

    /// Every topic some stream follows, as a change of it.
    package func followedTopics() -> Set<TopicChange> {
        Set(fromEveryLane { state in
            state.subscribers.all.flatMap { subscriber in subscriber.topics.map { TopicChange($0, of: subscriber.user) } }
        })
    }

    /// A comment on every stream, so that proxies keep it open and a vanished
    /// peer is noticed by the write.
    package func heartbeat() {
        let all = fromEveryLane { $0.subscribers.all }
        var deliveries = DeliveryBatches()
        for subscriber in all where subscriber.heartbeat() { deliveries.add(subscriber) }
        deliveries.start()
    }

    /// Ends every stream and accepts no new one (shutdown).
    package func closeAll() {
        let all = fromEveryLane { state -> [Subscriber] in
            state.closed = true
            return state.subscribers.all
        }
        // Presence stopped before: the streams that end now are not its to hear.
        streamChangesIn.finish()
        for subscriber in all { subscriber.end() }
    }
}
