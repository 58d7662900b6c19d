import TailorFeed
import Testing

/// Whom the other servers serve, as a writer keeps it.
@Suite struct ServerInterestsTests {
    @Test func aCommitGoesToTheServersThatServeAnyOfItsUsers() {
        var interests = ServerInterests(refresh: 10)
        interests.replaced([1, 2], by: "a", at: 0)
        interests.added([3], by: "b", at: 0)
        interests.added([4], by: "b", at: 0)
        #expect(interests.servers(servingAnyOf: [2, 9]) == ["a"])
        #expect(interests.servers(servingAnyOf: [1, 4]) == ["a", "b"])
        #expect(interests.servers(servingAnyOf: [9]) == [])
        // All a server serves replaces what it said before: 1's grace ended there.
        interests.replaced([2], by: "a", at: 1)
        #expect(interests.servers(servingAnyOf: [1]) == [])
    }

    @Test func aServerNotHeardFromForThreeRefreshesIsForgotten() {
        var interests = ServerInterests(refresh: 10)
        interests.replaced([1], by: "a", at: 0)
        interests.replaced([1], by: "b", at: 25)
        interests.forgetSilent(at: 29)
        #expect(interests.servers(servingAnyOf: [1]) == ["a", "b"])
        interests.forgetSilent(at: 30)
        #expect(interests.servers(servingAnyOf: [1]) == ["b"])
        #expect(interests.count == 1)
    }

    @Test func typingGoesOnTheBusOnlyWhenEveryServerOfTheContactHearsItThere() {
        var interests = ServerInterests(refresh: 10)
        interests.replaced([1, 2], by: "a", at: 0)
        interests.replaced([2], by: "old", at: 0)
        interests.hearsTyping("a", at: 0)
        #expect(interests.typingTargets(for: 1) == ["a"])
        #expect(interests.typingTargets(for: 9) == [], "served by no other server: sent to no one")
        #expect(interests.typingTargets(for: 2) == nil, "a server of an earlier version serves them: PostgreSQL tells everyone")
        // A server that stops saying so is forgotten as a hearer, as it is with its users.
        interests.replaced([1], by: "a", at: 25)
        interests.forgetSilent(at: 30)
        #expect(interests.typingTargets(for: 1) == nil)
        #expect(interests.typingHearers == 0)
    }
}
