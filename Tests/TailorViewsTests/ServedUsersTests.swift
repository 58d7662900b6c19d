import TailorViews
import Testing

/// Whom a server serves, as a value: users with a stream open here, for a
/// grace after their last closes, and those served everywhere; and from
/// which position each one's entries were all applied.
@Suite struct ServedUsersTests {
    @Test func aUserIsServedWhileAStreamIsOpenAndForTheGraceAfter() {
        let served = ServedUsers(grace: .seconds(3600))
        #expect(!served.servesAny(of: [1, 2]))
        served.opened(1)
        served.opened(1)
        #expect(served.servesAny(of: [2, 1]))
        served.closed(1)
        served.closed(1)
        #expect(served.servesAny(of: [1]), "let go before the grace ended")
        #expect(served.servesAny(of: nil), "an entry for anyone was passed over")
        #expect(!served.servesAny(of: []))
        #expect(served.count == 1)
    }

    @Test func pastTheGraceAUserIsNoLongerServed() {
        let served = ServedUsers(grace: .zero)
        served.opened(1)
        #expect(served.servesAny(of: [1]))
        served.closed(1)
        #expect(!served.servesAny(of: [1]))
        #expect(served.since(1) == nil)
        #expect(served.count == 0)
    }

    @Test func theBotIsServedEverywhere() {
        #expect(ServedUsers(everywhere: [7]).servesAny(of: [3, 7]))
    }

    /// The follower lets go of users whose grace ended, once each, and of
    /// none who came back or still stream.
    @Test func usersWhoseGraceEndedAreTakenOnce() {
        let served = ServedUsers(grace: .zero)
        served.opened(1)
        served.opened(2)
        served.opened(3)
        served.closed(1)
        served.closed(2)
        served.opened(2)
        #expect(served.takeEnded() == [1])
        #expect(served.takeEnded().isEmpty)
        let everyoneServed = ServedUsers(grace: .zero, passesOver: false)
        everyoneServed.opened(1)
        everyoneServed.closed(1)
        #expect(everyoneServed.takeEnded().isEmpty, "where nothing is passed over nothing is let go")
    }

    /// Entries decided before a user came to be served may have been passed
    /// over; from then on all of theirs are applied, through the grace too.
    @Test func sinceIsWhereTheFollowerWasWhenTheUserCameToBeServed() {
        let served = ServedUsers(grace: .seconds(3600))
        served.deciding(40)
        #expect(served.opened(1) == 40)
        served.deciding(55)
        #expect(served.opened(1) == 40, "a second stream moved since")
        served.closed(1)
        served.closed(1)
        served.deciding(70)
        #expect(served.opened(1) == 40, "a stream within the grace moved since")
        #expect(served.since(1) == 40)
        #expect(served.since(2) == nil)

        let ungraced = ServedUsers(grace: .zero)
        ungraced.deciding(10)
        ungraced.opened(1)
        ungraced.closed(1)
        ungraced.deciding(20)
        #expect(ungraced.opened(1) == 20, "served anew after the grace, yet since kept the old place")
    }

    /// A request serves its user for the grace after it, as a stream does.
    @Test func aRequestServesItsUserForTheGrace() {
        let served = ServedUsers(grace: .seconds(3600))
        served.deciding(12)
        served.requested(3)
        #expect(served.servesAny(of: [3]))
        #expect(served.since(3) == 12)
        #expect(ServedUsers(grace: .zero).servesAny(of: [3]) == false)
        let ungraced = ServedUsers(grace: .zero)
        ungraced.requested(3)
        #expect(!ungraced.servesAny(of: [3]))
    }

    /// Where nothing is passed over, every user is served and every entry
    /// of theirs was applied: a resume trusts what the lanes logged.
    @Test func whereNothingIsPassedOverEveryoneIsServedFromTheStart() {
        let served = ServedUsers(passesOver: false)
        #expect(served.servesAny(of: [5]))
        served.deciding(30)
        #expect(served.opened(5) == 0)
        #expect(served.since(5) == 0)
    }
}
