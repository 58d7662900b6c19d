/// What a server's push delivery has in flight: by subscription, by push
/// service, in all. One push at a time goes to a subscription, at most
/// `inFlightPerHost` to a push service and `inFlight` in all.
///
/// A push service's room goes to its users in turns: of the pushes waiting
/// for it, the next place goes to the user it served longest ago (or never).
/// So one user's backlog on a slow push service delays another user's push
/// by a few of that service's round trips, not by the whole backlog.
struct PushesInFlight {
    /// A claimed push that wants a place.
    struct Candidate: Equatable {
        let subscription: Int
        let user: Int
        /// Its push service; "" for an endpoint that cannot be used.
        let host: String
    }

    private(set) var subscriptions: Set<Int> = []
    private var perHost: [String: Int] = [:]
    /// For each push service, when it last served each user: a count of places given.
    private var served: [String: [Int: UInt64]] = [:]
    private var placesGiven: UInt64 = 0

    /// Users whose turns one push service remembers at most; past it, it starts over.
    static let rememberedUsersPerHost = 10_000

    var count: Int { subscriptions.count }

    /// Which of `candidates` (in the claim's order) take a place now, each
    /// service's places given in turns; the others wait for a later claim.
    mutating func admit(_ candidates: [Candidate], settings: PushSettings) -> [Bool] {
        var admitted = Array(repeating: false, count: candidates.count)
        var waiting = Array(candidates.indices)
        while true {
            let fitting = waiting.filter { fits(candidates[$0], settings: settings) }
            // The user served longest ago at that service; the claim's order among equals.
            guard let next = fitting.min(by: { (turn(of: candidates[$0]), $0) < (turn(of: candidates[$1]), $1) }) else { break }
            let candidate = candidates[next]
            subscriptions.insert(candidate.subscription)
            perHost[candidate.host, default: 0] += 1
            placesGiven += 1
            if served[candidate.host, default: [:]].count >= Self.rememberedUsersPerHost { served[candidate.host] = [:] }
            served[candidate.host, default: [:]][candidate.user] = placesGiven
            admitted[next] = true
            waiting.removeAll { $0 == next }
        }
        return admitted
    }

    mutating func leave(subscription: Int, host: String) {
        subscriptions.remove(subscription)
        perHost[host, default: 1] -= 1
        if perHost[host] == 0 { perHost[host] = nil }
    }

    private func fits(_ candidate: Candidate, settings: PushSettings) -> Bool {
        count < settings.inFlight && !subscriptions.contains(candidate.subscription)
            && perHost[candidate.host, default: 0] < settings.inFlightPerHost
    }

    private func turn(of candidate: Candidate) -> UInt64 {
        served[candidate.host]?[candidate.user] ?? 0
    }
}
