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
        #expect(lane.hand { $0.add([TopicChange(.badge, of: 1)], notifications: [], position: 3, freeing: &none) })
        // A pass is due: the next hand-off waits for it, asking for nothing.
        #expect(!lane.hand { $0.add([TopicChange(.badge, of: 2)], notifications: [], position: 4, freeing: &none) })
        let first = try #require(lane.takeWork())
        #expect(first.changes == [TopicChange(.badge, of: 1), TopicChange(.badge, of: 2)])
        #expect(first.position == 4)
        // While that pass runs, more comes: the running passes take it.
        #expect(!lane.hand { $0.rebuilds.insert(TopicChange(.badge, of: 1)) })
        let second = try #require(lane.takeWork())
        #expect(second.changes.isEmpty && second.rebuilds == [TopicChange(.badge, of: 1)])
        // Nothing left: the passes stop, and the next hand-off asks for them again.
        #expect(lane.takeWork() == nil)
        #expect(lane.hand { $0.rebuildsEveryFollowedTopic = true })
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
