import Synchronization
import TailorLoop
@testable import TailorStreams
import Testing

/// A lane's state on its loop, alone: every call from elsewhere runs there,
/// in the order the calls were made, and a call made while the state is
/// being visited waits for that visit to end.
@Suite struct LaneStateTests {
    private typealias LaneState = EventStreams.LaneState

    private static func lane(on loop: EventLoop) -> LaneState {
        LaneState(EventStreams.State(published: 0, loggedSince: 1), loop: loop)
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
}
