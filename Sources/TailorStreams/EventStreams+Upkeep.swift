import TailorDomain
import TailorViews

/// Upkeep of the open streams: ending some, asking what they show, heartbeats,
/// shutdown. Each is done by the lanes on their loops.
extension EventStreams {
    /// Ends the streams opened with the session whose token hash this is: it
    /// was signed out, revoked, or ended by a new password.
    package func endStreams(ofSession tokenHash: [UInt8]) {
        for lane in lanes {
            lane.later { state in
                for subscriber in state.subscribers.all where subscriber.session == tokenHash { subscriber.end() }
            }
        }
    }

    /// The users with a stream open here; for a thread that may block.
    package func usersWaiting() -> Set<Int> {
        Set(fromEveryLaneWaiting { state in state.subscribers.all.map(\.user) })
    }

    /// Ends every stream of `user`: their account was disabled.
    package func endStreams(ofUser user: Int) {
        lane(of: user).later { state in
            for subscriber in state.subscribers.streams(of: user) { subscriber.end() }
        }
    }

    /// Whether one of `user`'s streams shows the chat's latest messages: they
    /// see a message there as it comes, and need no push of it.
    package func isShowing(chat: Int, to user: Int) async -> Bool {
        await lane(of: user).ask { state in state.subscribers.followedTopics(of: user).contains(.chat(id: chat, page: .latest)) }
    }

    /// A comment on every stream, so that proxies keep it open and a vanished
    /// peer is noticed by the write.
    package func heartbeat() {
        for lane in lanes {
            lane.later { state in
                var deliveries = DeliveryBatches()
                for subscriber in state.subscribers.all where subscriber.heartbeat() { deliveries.add(subscriber) }
                deliveries.start()
            }
        }
    }

    /// Ends every stream and accepts no new one (shutdown); waits until every
    /// lane has closed, so call it from a thread that may block.
    package func closeAll() {
        // Presence stopped before: the streams that end now are not its to hear.
        streamChangesIn.finish()
        _ = fromEveryLaneWaiting { state -> [Never] in
            state.closed = true
            for subscriber in state.subscribers.all { subscriber.end() }
            return []
        }
    }
}
