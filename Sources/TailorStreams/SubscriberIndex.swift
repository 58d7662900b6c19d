import TailorViews
/// The open streams, found by user and by the topic they follow, so that a
/// change to one topic visits only that topic's streams, however many others
/// the user has open.
package struct SubscriberIndex {
    private var byUser: [Int: [ObjectIdentifier: Subscriber]] = [:]
    private var byTopic: [ViewKey: [ObjectIdentifier: Subscriber]] = [:]
    /// Per user, how many streams follow each topic.
    private var followed: [Int: [Topic: Int]] = [:]
    /// How many streams take each view model's patches.
    private var patched: [ViewKey: Int] = [:]

    private(set) var count = 0

    package mutating func insert(_ subscriber: Subscriber) {
        let id = ObjectIdentifier(subscriber)
        byUser[subscriber.user, default: [:]][id] = subscriber
        for topic in subscriber.topics {
            byTopic[ViewKey(user: subscriber.user, topic: topic), default: [:]][id] = subscriber
            followed[subscriber.user, default: [:]][topic, default: 0] += 1
            if subscriber.takesPatches { patched[ViewKey(user: subscriber.user, topic: topic), default: 0] += 1 }
        }
        count += 1
    }

    /// Removes `subscriber`, if it is here; whether it was.
    @discardableResult
    package mutating func remove(_ subscriber: Subscriber) -> Bool {
        let id = ObjectIdentifier(subscriber)
        let user = subscriber.user
        guard byUser[user]?.removeValue(forKey: id) != nil else { return false }
        if byUser[user]?.isEmpty == true { byUser[user] = nil }
        for topic in subscriber.topics {
            let key = ViewKey(user: user, topic: topic)
            byTopic[key]?.removeValue(forKey: id)
            if byTopic[key]?.isEmpty == true { byTopic[key] = nil }
            followed[user]?[topic]? -= 1
            if followed[user]?[topic] == 0 { followed[user]?[topic] = nil }
            if subscriber.takesPatches {
                patched[key]? -= 1
                if patched[key] == 0 { patched[key] = nil }
            }
        }
        if followed[user]?.isEmpty == true { followed[user] = nil }
        count -= 1
        return true
    }

    /// Every stream of `user`.
    package func streams(of user: Int) -> Dictionary<ObjectIdentifier, Subscriber>.Values {
        (byUser[user] ?? [:]).values
    }

    /// The streams that follow `key`.
    package func followers(of key: ViewKey) -> Dictionary<ObjectIdentifier, Subscriber>.Values {
        (byTopic[key] ?? [:]).values
    }

    /// Whether some stream takes `key`'s patches.
    package func hasPatchFollowers(_ key: ViewKey) -> Bool {
        patched[key] != nil
    }

    /// The topics of `user` that some stream follows.
    package func followedTopics(of user: Int) -> Dictionary<Topic, Int>.Keys {
        (followed[user] ?? [:]).keys
    }

    /// Topics followed, each user's counted apart.
    package var followedKeyCount: Int { byTopic.count }

    /// Every stream.
    package var all: [Subscriber] { byUser.values.flatMap(\.values) }

    /// Every topic some stream follows, as a change of it.
    package var followedChanges: Set<TopicChange> {
        var changes = Set<TopicChange>()
        for (user, topics) in followed {
            for topic in topics.keys { changes.insert(TopicChange(topic, of: user)) }
        }
        return changes
    }
}
