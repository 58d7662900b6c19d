import Synchronization
import TailorLoop
@testable import TailorStreams
import TailorHTTP
import TailorViews
import Testing

/// A lane alone: its state on its loop, where every call from elsewhere
/// runs, in the order the calls were made, a call made while the state is
/// being visited waiting for that visit to end; and its inbox, which asks for
/// passes once until they have taken everything.
@Suite struct LaneTests {
    private static func lane(on loop: EventLoop) -> Lane {
        Lane(index: 0, loop: loop, state: Lane.State(published: 0, loggedSince: 1))
    }

    @Test func anAnswerAskedForOffTheLoopIsFoundOnIt() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let lane = Self.lane(on: loop)
        let found = await lane.ask { state -> Bool in
            state.published = 5
            return loop.inLoopThread
        }
        #expect(found)
        #expect(await lane.ask { $0.published } == 5)
        #expect(lane.askAndWait { $0.published } == 5)
    }

    @Test func workHandedLaterRunsAfterWhatWasQueuedBeforeIt() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let lane = Self.lane(on: group.loops[0])
        for position in 1...100 {
            lane.later { state in
                // Each finds the one before it done.
                if state.published == Int64(position - 1) { state.published = Int64(position) }
            }
        }
        #expect(await lane.ask { $0.published } == 100)
    }

    @Test func workHandedWhileTheStateIsVisitedWaitsForTheVisitToEnd() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let lane = Self.lane(on: group.loops[0])
        // As a stream that ends while a pass queues to it asks to leave the index.
        let seenDuringVisit = await lane.ask { state -> Int64 in
            lane.later { $0.published = 9 }
            return state.published
        }
        #expect(seenDuringVisit == 0)
        #expect(await lane.ask { $0.published } == 9)
    }

    @Test func theInboxAsksForPassesOnceAndThePassesTakeWhatCameMeanwhile() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let lane = Self.lane(on: group.loops[0])
        var none: [CachedRepresentation] = []
        #expect(lane.follow(1) == nil)
        #expect(lane.hand { $0.add([TopicChange(.badge, of: 1)], notifications: [], position: 3, freeing: &none) })
        // A pass is due: the next hand-off waits for it, asking for nothing.
        #expect(!lane.hand { $0.add([TopicChange(.badge, of: 2)], notifications: [], position: 4, freeing: &none) })
        let first = try #require(lane.takeWork())
        #expect(first.changes == [TopicChange(.badge, of: 1), TopicChange(.badge, of: 2)])
        #expect(first.position == 4)
        // While that pass runs, more comes: the running passes take it.
        #expect(!lane.hand { $0.rebuilds.insert(TopicChange(.badge, of: 1)); return true })
        let second = try #require(lane.takeWork())
        #expect(second.changes.isEmpty && second.rebuilds == [TopicChange(.badge, of: 1)])
        // Nothing left: the passes stop, and the next hand-off asks for them again.
        #expect(lane.takeWork() == nil)
        #expect(lane.hand { $0.rebuildsEveryFollowedTopic = true; return true })
    }

    /// Work for users no stream of the lane follows (on several servers,
    /// most of the others' users) asks for no pass: it waits for one that
    /// comes anyway, or for a stream of theirs, which logs it first.
    @Test func workNoStreamFollowsWaitsUntilAStreamOfItsUserOpens() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let lane = Self.lane(on: group.loops[0])
        var none: [CachedRepresentation] = []
        let note = EventStreams.Notification(recipient: 5, chatID: 9, contact: "alice", text: "hi", position: 7)
        #expect(!lane.hand { $0.add([TopicChange(.badge, of: 5)], notifications: [note], position: 7, freeing: &none) })
        #expect(!lane.hand { $0.add([TopicChange(.chats(page: .first), of: 6)], notifications: [], position: 8, freeing: &none) })
        // A stream of user 5 opens: what waited is handed to it to log, and no pass is due.
        let waited = try #require(lane.follow(5))
        #expect(waited.changes == [TopicChange(.badge, of: 5), TopicChange(.chats(page: .first), of: 6)])
        #expect(waited.notifications.map(\.position) == [7] && waited.position == 8)
        #expect(lane.takeWork() == nil)
        // Now followed, their work asks for a pass; another user's still waits with it.
        #expect(!lane.hand { $0.add([TopicChange(.badge, of: 6)], notifications: [], position: 9, freeing: &none) })
        #expect(lane.hand { $0.add([TopicChange(.badge, of: 5)], notifications: [], position: 10, freeing: &none) })
        // A stream opening while a pass is due leaves the work to the pass.
        #expect(lane.follow(6) == nil)
        #expect(try #require(lane.takeWork()).changes == [TopicChange(.badge, of: 6), TopicChange(.badge, of: 5)])
        #expect(lane.takeWork() == nil)
        // Its last stream gone, the user's work waits again.
        lane.unfollow(5)
        #expect(!lane.hand { $0.add([TopicChange(.badge, of: 5)], notifications: [], position: 11, freeing: &none) })
    }

    @Test func quietWorkThatPilesUpAsksForAPass() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let lane = Self.lane(on: group.loops[0])
        var none: [CachedRepresentation] = []
        var asked = 0
        for user in 0...LaneInbox.quietAtMost {
            if lane.hand({ $0.add([TopicChange(.badge, of: user)], notifications: [], position: Int64(user + 1), freeing: &none) }) { asked += 1 }
        }
        #expect(asked == 1)
        #expect(lane.takeWork()?.changes.count == LaneInbox.quietAtMost + 1)
    }

    @Test func versionsToFreeLeaveTheCallerWhetherOrNotOthersWait() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let lane = Self.lane(on: group.loops[0])
        var handed = [CachedRepresentation(Array("{}".utf8), contentType: "application/json")]
        _ = lane.hand { $0.add([TopicChange(.badge, of: 1)], notifications: [], position: 1, freeing: &handed) }
        #expect(handed.isEmpty)
        handed = [CachedRepresentation(Array("[]".utf8), contentType: "application/json")]
        _ = lane.hand { $0.add([TopicChange(.badge, of: 2)], notifications: [], position: 2, freeing: &handed) }
        #expect(handed.isEmpty)
        #expect(lane.takeWork()?.toFree.count == 2)
    }
}
