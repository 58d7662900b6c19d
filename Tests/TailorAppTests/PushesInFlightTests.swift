@testable import TailorApp
import Testing

/// The push delivery's places alone: one push service's room goes to its
/// users in turns, so one user's backlog does not hold another's push.
@Suite struct PushesInFlightTests {
    private typealias Candidate = PushesInFlight.Candidate

    private var settings: PushSettings {
        var settings = PushSettings()
        settings.inFlight = 64
        settings.inFlightPerHost = 2
        return settings
    }

    @Test func aFreedPlaceGoesToTheUserTheServiceServedLongestAgo() {
        var places = PushesInFlight()
        // User 1 has ten subscriptions on the slow service, all due first.
        let backlog = (1...10).map { Candidate(subscription: $0, user: 1, host: "slow.example") }
        #expect(places.admit(backlog, settings: settings) == [true, true] + Array(repeating: false, count: 8))
        places.leave(subscription: 1, host: "slow.example")
        // User 2's one push comes after the rest of the backlog in the claim, and takes the freed place.
        let victim = Candidate(subscription: 20, user: 2, host: "slow.example")
        let waiting = Array(backlog[2...]) + [victim]
        #expect(places.admit(waiting, settings: settings) == Array(repeating: false, count: 8) + [true])
        // The next place is user 1's again, and another service's room is its own.
        places.leave(subscription: 2, host: "slow.example")
        let elsewhere = Candidate(subscription: 30, user: 1, host: "other.example")
        #expect(places.admit(Array(backlog[2...]) + [elsewhere], settings: settings) == [true] + Array(repeating: false, count: 7) + [true])
    }

    @Test func oneUserWithManyPushesTakesTurnsWithOthersInOneClaim() {
        var places = PushesInFlight()
        var settings = settings
        settings.inFlightPerHost = 3
        let claim = [Candidate(subscription: 1, user: 1, host: "h"), Candidate(subscription: 2, user: 1, host: "h"),
                     Candidate(subscription: 3, user: 1, host: "h"), Candidate(subscription: 4, user: 2, host: "h"),
                     Candidate(subscription: 5, user: 3, host: "h")]
        #expect(places.admit(claim, settings: settings) == [true, false, false, true, true])
        #expect(places.count == 3)
    }
}
