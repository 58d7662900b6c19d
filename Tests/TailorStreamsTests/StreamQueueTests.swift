@testable import TailorDomain
import TailorLoop
@testable import TailorStreams
@testable import TailorViews
import Testing

/// An event stream's queue alone, without a socket or a loop: when it writes,
/// what waits for a write under way, what a slow reader keeps, and what is
/// given as a patch.
@Suite struct StreamQueueTests {
    static func event(_ id: Int64, _ name: String = "chat", _ json: String = "{}") -> StreamEvent {
        StreamEvent(id: id, name: name, json: SharedBytes(json))
    }

    /// A new version at `id`: its bytes differ from every other id's unless given.
    static func update(_ id: Int64, _ json: String? = nil) -> TopicUpdate {
        TopicUpdate(whole: event(id, "chat", json ?? #"{"v":\#(id)}"#))
    }

    static func text(_ pieces: [SharedBytes]?) -> String {
        String(decoding: (pieces ?? []).flatMap { Array($0.bytes) }, as: UTF8.self)
    }

    /// The ids of the events in what a write sends, in order.
    static func ids(_ pieces: [SharedBytes]?) -> [Int64] {
        text(pieces).split(separator: "\n").compactMap { line in
            line.hasPrefix("id: ") ? Int64(line.dropFirst(4)) : nil
        }
    }

    /// A queue that has started, written its first bytes and is idle.
    static func idle(topics: Int = 2, patches: Bool = false) -> StreamQueue {
        var queue = StreamQueue(topicCount: topics, takesPatches: patches)
        _ = queue.start()
        _ = queue.wrote()
        return queue
    }

    /// An event is its id, its name and one data line, as a browser reads them.
    @Test func anEventsBytesAreItsIdNameAndData() {
        let event = StreamEvent(id: 9_007_199_254_740_993, name: "chats.patch", json: SharedBytes(#"{"a":1}"#))
        let text = String(decoding: event.pieces.flatMap(\.array), as: UTF8.self)
        #expect(text == "id: 9007199254740993\nevent: chats.patch\ndata: {\"a\":1}\n\n")
        #expect(event.byteCount == text.utf8.count)
    }

    /// One change to ten thousand streams: its bytes are counted once, plus
    /// what each holding stream adds, and all of it is given back as the
    /// streams write it; each stream's share is its part and an equal part.
    @Test func anEventSharedByManyStreamsIsCountedOnce() {
        let json = "{\"items\":\"" + String(repeating: "x", count: 1_700) + "\"}"
        let shared = Self.update(7, json)
        var queues = (0..<10_000).map { _ in Self.idle(topics: 1) }
        var held = 0
        for index in queues.indices { held += queues[index].push(shared, at: 0).heldBytesChange }
        #expect(held == shared.whole.byteCount + 10_000 * StreamEvent.perHolder)
        #expect(queues[0].heldBytes == StreamEvent.perHolder + shared.whole.byteCount / 10_000)
        for index in queues.indices {
            _ = queues[index].deliver()
            held += queues[index].wrote().heldBytesChange
        }
        #expect(held == 0)
    }

    /// Streams stuck on different versions hold each of them.
    @Test func streamsStuckOnDifferentVersionsHoldEachOfThem() {
        var first = Self.idle(topics: 1)
        var second = Self.idle(topics: 1)
        let older = Self.update(1, "{\"v\":\"" + String(repeating: "a", count: 1_000) + "\"}")
        let newer = Self.update(2, "{\"v\":\"" + String(repeating: "b", count: 1_000) + "\"}")
        var held = first.push(older, at: 0).heldBytesChange
        _ = first.deliver()
        held += second.push(newer, at: 0).heldBytesChange
        _ = second.deliver()
        // The first, still writing the older, is given the newer too.
        held += first.push(newer, at: 0).heldBytesChange
        #expect(held == older.whole.byteCount + newer.whole.byteCount + 3 * StreamEvent.perHolder)
        held += first.releaseAll() + second.releaseAll()
        #expect(held == 0)
    }

    @Test func theFirstWriteIsTheRetryDelayAndWhatWasQueuedWhileSubscribing() {
        var queue = StreamQueue(topicCount: 2, takesPatches: false)
        let held = queue.pushInitial(Self.event(5), version: TopicUpdate.unknown, showing: 0, at: 0)
        #expect(held > 0)
        // A change while subscribing asks for no delivery: `start` writes it.
        let change = queue.push(Self.update(6), at: 1)
        #expect(!change.mustDeliver)
        let first = queue.start()
        #expect(Self.text(first).hasPrefix("retry: "))
        #expect(Self.ids(first) == [5, 6])
        let wrote = queue.wrote()
        #expect(wrote.heldBytesChange < 0 && wrote.next == nil)
        #expect(queue.heldBytes == 0)
        guard case .idle = queue.state else { Issue.record("not idle after the first write: \(queue.state)"); return }
    }

    @Test func anIdleStreamAsksForOneDeliveryForManyEvents() {
        var queue = Self.idle()
        let first = queue.push(Self.update(7), at: 0)
        #expect(first.mustDeliver)
        let second = queue.push(Self.update(8), at: 1)
        #expect(!second.mustDeliver)
        let notification = queue.pushNotification(Self.event(6, "message"))
        #expect(!notification.mustDeliver)
        let delivered = queue.deliver()
        #expect(Self.ids(delivered) == [6, 7, 8])
        let wrote = queue.wrote()
        #expect(wrote.heldBytesChange < 0 && wrote.next == nil && queue.heldBytes == 0)
        // Idle again: the next event asks for a delivery of its own.
        let next = queue.push(Self.update(9), at: 0)
        #expect(next.mustDeliver)
    }

    @Test func eventsDuringAWriteAreWrittenWhenItFinishes() {
        var queue = Self.idle()
        _ = queue.push(Self.update(7), at: 0)
        _ = queue.deliver()
        // The write is under way (or waits for room): no second delivery.
        let duringWrite = queue.push(Self.update(8), at: 1)
        #expect(!duringWrite.mustDeliver)
        let heartbeat = queue.heartbeat()
        #expect(!heartbeat.mustDeliver)
        let wrote = queue.wrote()
        #expect(Self.ids(wrote.next) == [8])
        // The next write holds only its own bytes.
        #expect(queue.heldBytes > 0)
        let last = queue.wrote()
        #expect(last.next == nil)
        #expect(queue.heldBytes == 0)
    }

    @Test func endingStopsEverything() {
        var queue = Self.idle()
        let queued = queue.push(Self.update(7), at: 0)
        #expect(queued.mustDeliver)
        let ended = queue.end()
        #expect(ended)
        let endedAgain = queue.end()
        #expect(!endedAgain)
        #expect(queue.isEnded)
        // The delivery already queued finds nothing to do.
        let delivered = queue.deliver()
        #expect(delivered == nil)
        let afterEnd = queue.push(Self.update(8), at: 0)
        #expect(!afterEnd.mustDeliver)
        let heartbeat = queue.heartbeat()
        #expect(!heartbeat.mustDeliver)
    }

    @Test func aStreamEndedWhileSubscribingNeverWrites() {
        var queue = StreamQueue(topicCount: 1, takesPatches: false)
        _ = queue.pushInitial(Self.event(1), version: TopicUpdate.unknown, showing: 0, at: 0)
        let ended = queue.end()
        #expect(ended)
        let first = queue.start()
        #expect(first == nil)
    }

    @Test func aWriteFinishedAfterTheEndWritesNothingMore() {
        var queue = Self.idle()
        _ = queue.push(Self.update(7), at: 0)
        _ = queue.deliver()
        _ = queue.push(Self.update(8), at: 1)
        let ended = queue.end()
        #expect(ended)
        let written = queue.wrote()
        #expect(written.next == nil)
    }

    @Test func aNewerViewModelReplacesTheUnsentOne() {
        var queue = Self.idle(topics: 1)
        let small = queue.push(Self.update(1, "{\"a\":1}"), at: 0).heldBytesChange
        let change = queue.push(Self.update(2, "{\"a\":12345}"), at: 0).heldBytesChange
        #expect(change == 4)
        #expect(queue.queuedCount == 1)
        #expect(queue.heldBytes == small + change)
        let delivered = queue.deliver()
        #expect(Self.ids(delivered) == [2])
    }

    @Test func anInitialViewModelDoesNotReplaceAChange() {
        var queue = StreamQueue(topicCount: 1, takesPatches: false)
        _ = queue.push(Self.update(9, "{\"new\":true}"), at: 0)
        let held = queue.pushInitial(Self.event(8, "chat", "{\"old\":true}"), version: TopicUpdate.unknown, showing: 0, at: 0)
        #expect(held == 0)
        let first = Self.text(queue.start())
        #expect(first.contains("\"new\"") && !first.contains("\"old\""))
    }

    @Test func aChangeTheFirstViewModelShowsIsNotSentAgain() {
        var queue = StreamQueue(topicCount: 2, takesPatches: false)
        // Both first view models show the feed up to position 10.
        _ = queue.pushInitial(Self.event(8), version: TopicUpdate.unknown, showing: 10, at: 0)
        _ = queue.pushInitial(Self.event(8), version: TopicUpdate.unknown, showing: 10, at: 1)
        _ = queue.start()
        _ = queue.wrote()
        // Position 9 was committed before the stream opened and published after.
        let late = queue.push(Self.update(9), at: 0)
        #expect(!late.mustDeliver && late.heldBytesChange == 0 && queue.queuedCount == 0)
        // A rebuild at an old position may show something new (the date at midnight).
        let rebuilt = queue.push(TopicUpdate(whole: Self.event(9), isRebuild: true), at: 1)
        #expect(rebuilt.mustDeliver)
        #expect(Self.ids(queue.deliver()) == [9])
        _ = queue.wrote()
        let next = queue.push(Self.update(11, #"{"n":11}"#), at: 0)
        #expect(next.mustDeliver)
    }

    /// The first view model was built once a change was applied, and queued
    /// before the lane published it: the change's event, at a later position
    /// than the one read before the build, brings the same bytes again. So
    /// does a pass after one that came behind the feed.
    @Test func aChangeWithTheBytesOfTheViewModelBeforeIsNotSentAgain() {
        var queue = StreamQueue(topicCount: 1, takesPatches: false)
        _ = queue.pushInitial(Self.event(8, "chat", #"{"n":9}"#), version: TopicUpdate.unknown, showing: 8, at: 0)
        _ = queue.start()
        _ = queue.wrote()
        let same = queue.push(Self.update(9, #"{"n":9}"#), at: 0)
        #expect(!same.mustDeliver && queue.queuedCount == 0)
        let next = queue.push(Self.update(10, #"{"n":10}"#), at: 0)
        #expect(next.mustDeliver)
        #expect(Self.ids(queue.deliver()) == [10])
        _ = queue.wrote()
        // 10's pass came behind the feed and built what 11 shows: 11's own pass brings nothing new.
        #expect(!queue.push(Self.update(11, #"{"n":10}"#), at: 0).mustDeliver)
        // Bytes seen before but not the latest are news (a message deleted, the view back where it was).
        #expect(queue.push(Self.update(12, #"{"n":9}"#), at: 0).mustDeliver)
    }

    @Test func aStreamOfPatchesGetsEveryVersionEvenALateOne() {
        var queue = StreamQueue(topicCount: 1, takesPatches: true)
        _ = queue.pushInitial(Self.event(8), version: 10, showing: 10, at: 0)
        _ = queue.start()
        _ = queue.wrote()
        // Published late, but a patch names the event it applies to: skipping
        // it would leave the next one naming an event the stream never had.
        let late = queue.push(TopicUpdate(whole: Self.event(9, "chat", "{}"), version: 11,
                                          patch: Self.event(9, "chat.patch", "[]"), base: 10), at: 0)
        #expect(late.mustDeliver)
        #expect(Self.text(queue.deliver()).contains("chat.patch"))
    }

    @Test func aStreamTooFarBehindOnNotificationsIsToEnd() {
        var queue = Self.idle()
        for id in 1...Int64(StreamQueue.maxQueuedNotifications) {
            let queued = queue.pushNotification(Self.event(id, "message"))
            #expect(!queued.tooFarBehind)
        }
        let last = queue.pushNotification(Self.event(100, "message"))
        #expect(last.tooFarBehind && last.heldBytesChange == 0)
        #expect(queue.queuedCount == StreamQueue.maxQueuedNotifications)
    }

    @Test func aQuietStreamWritesAHeartbeat() {
        var queue = Self.idle()
        let heartbeat = queue.heartbeat()
        #expect(heartbeat.mustDeliver)
        let delivered = queue.deliver()
        #expect(Self.text(delivered) == ": ping\n\n")
    }

    @Test func aPatchIsGivenOnlyOnTopOfTheVersionTheStreamHas() {
        var queue = StreamQueue(topicCount: 1, takesPatches: true)
        _ = queue.pushInitial(Self.event(1), version: 10, showing: 0, at: 0)
        _ = queue.start()
        _ = queue.wrote()
        func update(_ id: Int64, version: UInt64, base: UInt64) -> TopicUpdate {
            TopicUpdate(whole: Self.event(id, "chat", "{\"whole\":\(id)}"), version: version,
                        patch: Self.event(id, "chat.patch", "[\(id)]"), base: base)
        }
        // On top of what it has: the patch.
        _ = queue.push(update(2, version: 11, base: 10), at: 0)
        let patched = queue.deliver()
        #expect(Self.text(patched).contains("chat.patch"))
        _ = queue.wrote()
        // A patch of another base: the whole view model.
        _ = queue.push(update(3, version: 13, base: 12), at: 0)
        let whole = queue.deliver()
        #expect(Self.text(whole).contains("{\"whole\":3}"))
        _ = queue.wrote()
        // Two changes before a write: the second is whole, since the first was never sent.
        _ = queue.push(update(4, version: 14, base: 13), at: 0)
        _ = queue.push(update(5, version: 15, base: 14), at: 0)
        let third = queue.deliver()
        #expect(Self.ids(third) == [5])
        #expect(Self.text(third).contains("{\"whole\":5}"))
    }

    @Test func releasingGivesBackEveryByteHeld() {
        var queue = Self.idle()
        _ = queue.push(Self.update(7, "{\"a\":1}"), at: 0)
        _ = queue.pushNotification(Self.event(8, "message"))
        let held = queue.heldBytes
        #expect(held > 0)
        let released = queue.releaseAll()
        #expect(released == -held)
        #expect(queue.heldBytes == 0 && queue.queuedCount == 0)
    }
}
