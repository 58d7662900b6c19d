import TailorHTTP
import Testing
@testable import TailorViews

/// The view cache alone: what an offer made after a read keeps, with the
/// changes that committed while the read went on.
@Suite struct ViewCacheTests {
    let bobsChats = ViewKey(user: 2, topic: .chats(page: .first))
    let bobsBadge = ViewKey(user: 2, topic: .badge)

    func representation(_ text: String) -> CachedRepresentation {
        CachedRepresentation(Array(text.utf8), contentType: HTTPResponse.jsonContentType)
    }

    @Test func aChangeToOtherTopicsDuringTheReadKeepsItsView() {
        let cache = ViewCache(budgetBytes: 1 << 20)
        let began = cache.sequence
        _ = cache.apply([.chats(user: 1), .badge(user: 2)])
        cache.offer(representation(#"{"items":[]}"#), for: bobsChats, builtAfter: began)
        #expect(cache.lookup(bobsChats) != nil)
    }

    @Test func aChangeToItsTopicDuringTheReadRefusesIt() {
        let cache = ViewCache(budgetBytes: 1 << 20)
        let began = cache.sequence
        _ = cache.apply([.chats(user: 2)])
        _ = cache.apply([.badge(user: 3)])
        cache.offer(representation(#"{"items":[]}"#), for: bobsChats, builtAfter: began)
        #expect(cache.lookup(bobsChats) == nil)
        // A read that began after that change is kept.
        let later = cache.sequence
        cache.offer(representation(#"{"items":[1]}"#), for: bobsChats, builtAfter: later)
        #expect(cache.lookup(bobsChats) != nil)
    }

    @Test func aReadLongerThanTheChangesRememberedIsRefused() {
        let cache = ViewCache(budgetBytes: 1 << 20)
        let began = cache.sequence
        for user in 100..<300 { _ = cache.apply([.chats(user: user)]) }
        cache.offer(representation("0"), for: bobsBadge, builtAfter: began)
        #expect(cache.lookup(bobsBadge) == nil)
    }

    @Test func takingEverythingRefusesEveryReadBegunBefore() {
        let cache = ViewCache(budgetBytes: 1 << 20)
        cache.offer(representation("1"), for: bobsBadge, builtAfter: cache.sequence)
        let began = cache.sequence
        #expect(cache.takeAll()[bobsBadge] != nil)
        cache.offer(representation("1"), for: bobsBadge, builtAfter: began)
        #expect(cache.lookup(bobsBadge) == nil)
        cache.removeAll()
        cache.offer(representation("1"), for: bobsBadge, builtAfter: began)
        #expect(cache.lookup(bobsBadge) == nil)
    }

    /// A user whose changes are passed over loses every view model kept, and
    /// a read of theirs begun before is refused; other users keep theirs.
    @Test func forgettingAUserDropsTheirViewsAndRefusesAReadOfTheirsBegunBefore() {
        let cache = ViewCache(budgetBytes: 1 << 20)
        let alicesBadge = ViewKey(user: 1, topic: .badge)
        cache.offer(representation("1"), for: bobsBadge, builtAfter: cache.sequence)
        cache.offer(representation("2"), for: alicesBadge, builtAfter: cache.sequence)
        let began = cache.sequence
        #expect(cache.forget(users: [2, 9]).count == 1)
        #expect(cache.lookup(bobsBadge) == nil)
        #expect(cache.lookup(alicesBadge) != nil)
        cache.offer(representation("[]"), for: bobsChats, builtAfter: began)
        #expect(cache.lookup(bobsChats) == nil, "a read begun before the forgetting was kept")
        cache.offer(representation("[]"), for: bobsChats, builtAfter: cache.sequence)
        #expect(cache.lookup(bobsChats) != nil)
        #expect(cache.byteCount == 3)
    }
}
