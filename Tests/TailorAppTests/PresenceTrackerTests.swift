@testable import TailorApp
import TailorPresence
@testable import TailorViews
import Testing

/// The presence state machine alone, with its clock in the test's hands.
@Suite struct PresenceTrackerTests {
    private static let second: UInt64 = 1_000_000_000
    private static let time = 1_795_000_000_000

    private func tracker(_ server: String = "m") -> PresenceTracker {
        var settings = PresenceTracker.Settings()
        settings.offlineGrace = 2 * Self.second
        settings.serverLifetime = 15 * Self.second
        return PresenceTracker(server: server, settings: settings, alwaysOnline: [99])
    }

    @Test func aUserIsOnlineWithTheFirstStreamAndLastSeenOnceTheGraceAfterTheLastIsOver() {
        var presence = tracker()
        #expect(!presence.isShownOnline(1))
        #expect(presence.streamOpened(by: 1, now: 0) == [.announce(.online(user: 1)), .show(user: 1)])
        #expect(presence.isShownOnline(1))
        #expect(presence.streamOpened(by: 1, now: 1) == [])
        #expect(presence.streamClosed(by: 1, now: 2, time: Self.time) == [])
        #expect(presence.streamClosed(by: 1, now: 3, time: Self.time + 1) == [])
        #expect(presence.tick(now: 2 * Self.second, time: 0) == [], "within the grace")
        let ended = presence.tick(now: 3 * Self.second, time: 0)
        #expect(ended == [.announce(.offline(user: 1, lastSeen: Self.time + 1)), .recordLastSeen(user: 1, at: Self.time + 1)])
        #expect(presence.isShownOnline(1), "online until the last seen is in the feed")
        #expect(presence.lastSeenRecorded(of: 1, now: 4 * Self.second) == [.show(user: 1)])
        #expect(!presence.isShownOnline(1))
    }

    /// `tailor users disable` asks who runs: each server answers with its
    /// heartbeat, and the tool is not taken for a server (which would be
    /// said gone later). What it hears back, alone.
    @Test func aRollCallIsAnsweredAndTheToolIsNoServer() {
        var presence = tracker()
        #expect(presence.heard(.rollCall, from: "users-7", now: 0, time: Self.time) == [.announce(.heartbeat)])
        #expect(presence.otherServerCount == 0)
        #expect(presence.heard(.applied(position: 9), from: "k", now: 0, time: Self.time) == [])
        #expect(presence.otherServerCount == 1)
        var heard = DisableConfirmations(position: 10, me: "users-7")
        heard.heard(PresenceSignal.rollCall.payload(from: "users-7"))
        #expect(heard.sentence == "no server answered on this database")
        heard.heard(PresenceSignal.heartbeat.payload(from: "k"))
        heard.heard(PresenceSignal.applied(position: 9).payload(from: "m"))
        #expect(heard.waitingFor == ["k", "m"], "an earlier position confirms nothing")
        heard.heard(PresenceSignal.applied(position: 10).payload(from: "k"))
        heard.heard(PresenceSignal.applied(position: 12).payload(from: "m"))
        #expect(heard.waitingFor == [])
        #expect(heard.sentence == "confirmed by 2 servers")
    }

    @Test func aStreamBackWithinTheGraceChangesNothing() {
        var presence = tracker()
        _ = presence.streamOpened(by: 1, now: 0)
        _ = presence.streamClosed(by: 1, now: Self.second, time: Self.time)
        #expect(presence.streamOpened(by: 1, now: 2 * Self.second) == [])
        #expect(presence.tick(now: 10 * Self.second, time: 0) == [])
        #expect(presence.isShownOnline(1))
        #expect(presence.usersHere == [1])
    }

    @Test func aStoppingServerTellsItsUsersGoneAndRecordsThoseOnNoOtherServer() {
        var presence = tracker()
        _ = presence.heard(.online(user: 2), from: "x", now: 0, time: 0)
        _ = presence.streamOpened(by: 1, now: 0)
        _ = presence.streamOpened(by: 2, now: 0)
        _ = presence.streamOpened(by: 3, now: 0)
        _ = presence.streamClosed(by: 3, now: 0, time: Self.time - 5)
        #expect(presence.stopping(time: Self.time) == [
            .announce(.offline(user: 1, lastSeen: Self.time)), .recordLastSeen(user: 1, at: Self.time),
            .announce(.offline(user: 2, lastSeen: nil)),
            .announce(.offline(user: 3, lastSeen: Self.time - 5)), .recordLastSeen(user: 3, at: Self.time - 5),
        ])
        #expect(presence.usersHere.isEmpty)
        #expect(presence.streamClosed(by: 1, now: 0, time: Self.time) == [], "its streams then close with nothing to say")
    }

    @Test func aUserOnAnotherServerIsNotRecordedHere() {
        var presence = tracker()
        _ = presence.heard(.online(user: 1), from: "x", now: 0, time: Self.time)
        _ = presence.streamOpened(by: 1, now: 0)
        _ = presence.streamClosed(by: 1, now: 0, time: Self.time)
        #expect(presence.tick(now: 3 * Self.second, time: 0) == [.announce(.offline(user: 1, lastSeen: nil))])
        #expect(presence.isShownOnline(1))
    }

    /// Signals that flip a user several times a second change what is shown
    /// once, and then once more when the interval is over, to what holds then.
    @Test func flickeringChangesWhatIsShownAtMostOncePerInterval() {
        var presence = tracker()
        var shows = 0
        for step in 0..<10 {
            let now = UInt64(step) * Self.second / 10
            let signal: PresenceSignal = step.isMultiple(of: 2) ? .online(user: 1) : .offline(user: 1, lastSeen: nil)
            shows += presence.heard(signal, from: "x", now: now, time: Self.time).filter { $0 == .show(user: 1) }.count
            shows += presence.tick(now: now, time: Self.time).filter { $0 == .show(user: 1) }.count
        }
        #expect(shows == 1)
        #expect(presence.tick(now: Self.second + 1, time: Self.time) == [.show(user: 1)])
        #expect(!presence.isShownOnline(1), "the last signal said offline")
    }

    /// A last seen that comes within the interval is shown when it is over,
    /// whatever is heard meanwhile.
    @Test func aLastSeenDueIsShownEvenIfTheStateIsAsShownByThen() {
        var presence = tracker()
        _ = presence.heard(.online(user: 1), from: "x", now: 0, time: 0)
        #expect(presence.tick(now: Self.second + Self.second / 2, time: 0) == [])
        #expect(presence.heard(.offline(user: 1, lastSeen: nil), from: "x", now: 2 * Self.second, time: 0) == [.show(user: 1)])
        #expect(presence.lastSeenRecorded(of: 1, now: 2 * Self.second + 1) == [], "within the interval")
        #expect(presence.heard(.here(users: [], replacing: true), from: "x", now: 2 * Self.second + 2, time: 0) == [])
        #expect(presence.tick(now: 3 * Self.second + 2, time: 0) == [.show(user: 1)])
        #expect(presence.tick(now: 5 * Self.second, time: 0) == [])
    }

    @Test func theUsersOfAServerNotHeardFromAreRecordedByTheFirstServerLeft() {
        var first = tracker("a")
        var second = tracker("b")
        _ = first.heard(.online(user: 1), from: "x", now: 0, time: Self.time)
        _ = second.heard(.online(user: 1), from: "x", now: 0, time: Self.time)
        _ = first.heard(.heartbeat, from: "b", now: 14 * Self.second, time: 0)
        _ = second.heard(.heartbeat, from: "a", now: 14 * Self.second, time: 0)
        #expect(first.tick(now: 15 * Self.second, time: 0) == [.serverGone(name: "x", users: 1), .recordLastSeen(user: 1, at: Self.time)])
        #expect(second.tick(now: 15 * Self.second, time: 0) == [.serverGone(name: "x", users: 1)], "a is first: b waits for its write")
        #expect(first.isShownOnline(1) && second.isShownOnline(1))
        #expect(second.lastSeenRecorded(of: 1, now: 16 * Self.second) == [.show(user: 1)])
        #expect(!second.isShownOnline(1))
        // Had the write never come, the wait ends with a server's lifetime.
        #expect(first.tick(now: 30 * Self.second, time: 0) == [.serverGone(name: "b", users: 0), .show(user: 1)], "b is not heard from either")
        #expect(!first.isShownOnline(1))
    }

    @Test func typingStartsAtOnceAndEndsAfterItsDurationOrWithAMessage() {
        var presence = tracker()
        #expect(presence.typed(in: 7, by: 1, contact: 2, now: 0)
            == [.announce(.typing(chat: 7, user: 1, contact: 2)), .showTyping(chat: 7, user: 1, contact: 2)])
        #expect(presence.typed(in: 7, by: 1, contact: 2, now: Self.second) == [.announce(.typing(chat: 7, user: 1, contact: 2))])
        #expect(presence.isTyping(1, in: 7) && !presence.isTyping(1, in: 8))
        #expect(presence.tick(now: 5 * Self.second, time: 0) == [], "five seconds after the last signal, not the first")
        #expect(presence.tick(now: 6 * Self.second, time: 0) == [.showTyping(chat: 7, user: 1, contact: 2)])
        #expect(!presence.isTyping(1, in: 7))
        _ = presence.heard(.typing(chat: 7, user: 1, contact: 2), from: "x", now: 7 * Self.second, time: 0)
        #expect(presence.isTyping(1, in: 7))
        presence.messageSent(in: 7, by: 1)
        #expect(!presence.isTyping(1, in: 7))
    }

    /// The driver ticks only when something is due: a server with nothing
    /// in a grace, typing or just shown has no tick due at all.
    @Test func aTickIsDueOnlyWhenAGraceATypingAShowOrALifetimeEnds() {
        var presence = tracker()
        #expect(presence.nextDue == .max, "nothing pending")
        _ = presence.streamOpened(by: 1, now: 0)
        #expect(presence.nextDue == Self.second, "the show interval of user 1 shown online")
        #expect(presence.tick(now: Self.second, time: 0) == [])
        #expect(presence.nextDue == .max, "shown, and nothing else pending")
        _ = presence.streamClosed(by: 1, now: 3 * Self.second, time: Self.time)
        #expect(presence.nextDue == 5 * Self.second, "the grace after the last stream")
        _ = presence.typed(in: 7, by: 2, contact: 1, now: 4 * Self.second)
        #expect(presence.nextDue == 5 * Self.second, "the earlier of the grace and the typing")
        #expect(presence.tick(now: 5 * Self.second, time: 0).contains(.recordLastSeen(user: 1, at: Self.time)))
        #expect(presence.nextDue == 9 * Self.second, "the typing, before user 1 stops leaving at the lifetime")
        _ = presence.lastSeenRecorded(of: 1, now: 6 * Self.second)
        _ = presence.tick(now: 9 * Self.second, time: 0)
        #expect(presence.nextDue == .max)
        _ = presence.heard(.heartbeat, from: "k", now: 10 * Self.second, time: Self.time)
        #expect(presence.nextDue == 25 * Self.second, "another server's lifetime")
        _ = presence.heard(.heartbeat, from: "k", now: 14 * Self.second, time: Self.time)
        #expect(presence.tick(now: 25 * Self.second, time: 0) == [], "heard from again: early, and nothing to do")
        #expect(presence.nextDue == 29 * Self.second)
    }

    @Test func aServerThatSaysHelloHearsWhoIsHereAndReplacesWhatWasKnownOfIt() {
        var presence = tracker()
        for user in 1...(PresenceTracker.usersPerSignal + 1) { _ = presence.streamOpened(by: user, now: 0) }
        let answer = presence.heard(.hello, from: "x", now: 0, time: 0)
        #expect(answer.count == 2)
        #expect(answer.first == .announce(.here(users: Array(1...PresenceTracker.usersPerSignal), replacing: true)))
        var other = tracker("o")
        _ = other.heard(.online(user: 5000), from: "m", now: 0, time: 0)
        for case .announce(let signal) in answer { _ = other.heard(signal, from: "m", now: 0, time: 0) }
        _ = other.tick(now: 2 * Self.second, time: 0)
        #expect(other.isShownOnline(PresenceTracker.usersPerSignal + 1) && !other.isShownOnline(5000))
        #expect(other.isShownOnline(99), "the chatbot")
    }

    @Test func signalsComeBackFromTheirPayloads() {
        let signals: [PresenceSignal] = [
            .online(user: 1), .offline(user: 2, lastSeen: 1_795_000_000_123), .offline(user: 3, lastSeen: nil),
            .typing(chat: 4, user: 5, contact: 6), .here(users: [7, 8, 9], replacing: true), .here(users: [], replacing: false),
            .hello, .heartbeat,
        ]
        for signal in signals {
            let read = PresenceSignal.read(signal.payload(from: "k3j9"))
            #expect(read?.signal == signal && read?.sender == "k3j9", "\(signal.payload(from: "k3j9"))")
        }
        for unknown in ["", "k3j9", "k3j9 z 1", "k3j9 o", "k3j9 o x", "k3j9 f 1 y", "k3j9 l 1 2,x", "k3j9 t 1 2"] {
            #expect(PresenceSignal.read(unknown) == nil, "\(unknown)")
        }
    }
}
