/// How users are shared out over the publisher lanes: every change of one
/// user's view models, and every notification to them, goes to one lane.
///
/// A stream is one user's, so all of its events come from one lane, which
/// publishes them in feed order: the ids along a stream never go back.
package struct PublisherLanes: Sendable {
    package let count: Int

    package init(count: Int) {
        self.count = max(1, count)
    }

    package func lane(of user: Int) -> Int {
        user % count
    }
}
