/// Which other servers serve which users, as they say on the bus: each
/// tells the users it comes to serve as they come (`added`), and all it
/// serves every `refresh` (`replaced`), which also drops those whose grace
/// ended. A writer sends a commit whole only to the servers that serve one
/// of its users; the others learn of it by its stub. A server not heard from
/// for three refreshes is forgotten: gone, or cut off from the bus.
///
/// Each also says with every refresh that it hears typing on the bus
/// (`hearsTyping`): a typing signal then goes only to the servers that
/// serve its contact, rather than to every server through PostgreSQL.
/// A server of an earlier version never says so, and is sent it there.
///
/// A value, owned by whoever holds it under a lock (`FeedBus`).
package struct ServerInterests: Equatable {
    private struct Server: Equatable {
        var users: Set<Int>
        var heardAt: UInt64
    }

    private var servers: [String: Server] = [:]
    /// The servers that said they hear typing on the bus, and when they last said so.
    private var hearingTyping: [String: UInt64] = [:]
    private let forgetAfter: UInt64

    /// `refresh`: how often each server says all the users it serves, in nanoseconds.
    package init(refresh: UInt64) {
        forgetAfter = refresh * 3
    }

    /// `server` comes to serve `users` besides those it serves.
    package mutating func added(_ users: [Int], by server: String, at now: UInt64) {
        servers[server, default: Server(users: [], heardAt: now)].users.formUnion(users)
        servers[server]?.heardAt = now
    }

    /// `server` serves `users` and no others.
    package mutating func replaced(_ users: [Int], by server: String, at now: UInt64) {
        servers[server] = Server(users: Set(users), heardAt: now)
    }

    /// `server` hears typing signals on the bus, on a subject of its own.
    package mutating func hearsTyping(_ server: String, at now: UInt64) {
        hearingTyping[server] = now
    }

    /// Forgets the servers not heard from for three refreshes.
    package mutating func forgetSilent(at now: UInt64) {
        servers = servers.filter { now &- $0.value.heardAt < forgetAfter }
        hearingTyping = hearingTyping.filter { now &- $0.value < forgetAfter }
    }

    /// The servers to send a typing signal to `contact` on the bus, in
    /// order (none: no other server serves them); nil when one that serves
    /// them does not hear typing there, and PostgreSQL must tell every server.
    package func typingTargets(for contact: Int) -> [String]? {
        let targets = servers(servingAnyOf: [contact])
        return targets.allSatisfy { hearingTyping[$0] != nil } ? targets : nil
    }

    /// The servers heard saying they hear typing on the bus.
    package var typingHearers: Int { hearingTyping.count }

    /// The servers that serve any of `users`, in order.
    package func servers(servingAnyOf users: [Int]) -> [String] {
        servers.filter { _, server in users.contains(where: server.users.contains) }.keys.sorted()
    }

    /// The servers heard from.
    package var count: Int { servers.count }
}
