import Synchronization
import TailorHTTP
import TailorLoop

/// Every view model built, encoded once into a `CachedRepresentation` (bytes,
/// gzip, ETags), until a change touches it; bounded by a byte budget, least
/// recently used first out.
///
/// A read that missed builds from a reader connection and then offers its result.
/// A write that committed meanwhile may have made that result stale, so every
/// change bumps a sequence number and is remembered for a while: an offer is
/// taken unless a change since the sequence seen before the read began touched
/// its topic. (Refusing it after any change at all would refuse most builds
/// under load, and leave followed view models out that midnight compares with.)
package final class ViewCache: Sendable {
    private struct Entry {
        let representation: CachedRepresentation
        var lastUsed: UInt64
        /// The representation's bytes, kept here: dropping an entry, where the
        /// feed is applied, then reads nothing of a version long out of the CPU's caches.
        let bytes: Int
    }

    private struct State {
        var entries: [Int: [Topic: Entry]] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var sequence: UInt64 = 0
        /// The latest changes, oldest first, each with the sequence it made,
        /// and the users whose every view model it dropped (`forget`).
        var recentChanges: [(sequence: UInt64, changes: Set<TopicChange>, users: [Int])] = []
        /// Offers of builds begun before this sequence are refused: the
        /// changes since are no longer all remembered.
        var rememberedSince: UInt64 = 0

        /// Whether a view of `key` built from what was committed at `sequence` still holds.
        func holds(_ key: ViewKey, builtAfter sequence: UInt64) -> Bool {
            if sequence == self.sequence { return true }
            guard sequence >= rememberedSince else { return false }
            let touching = TopicChange(key.topic, of: key.user)
            for recent in recentChanges.reversed() {
                if recent.sequence <= sequence { break }
                if recent.changes.contains(touching) || recent.users.contains(key.user) { return false }
            }
            return true
        }

        mutating func forgetEveryChange() {
            sequence += 1
            recentChanges.removeAll()
            rememberedSince = sequence
        }
    }

    /// How many changes are remembered for offers: builds that take longer
    /// than this many commits are not kept.
    private static let changesRemembered = 64

    package let budgetBytes: Int
    private let state = Mutex(State())
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)

    package init(budgetBytes: Int) {
        self.budgetBytes = budgetBytes
    }

    /// The sequence to pass to `offer` for a build that starts now.
    package var sequence: UInt64 { state.withLock { $0.sequence } }

    package func lookup(_ key: ViewKey) -> CachedRepresentation? {
        let found = state.withLock { state -> CachedRepresentation? in
            guard var entry = state.entries[key.user]?[key.topic] else { return nil }
            state.clock += 1
            entry.lastUsed = state.clock
            state.entries[key.user]![key.topic] = entry
            return entry.representation
        }
        if found == nil {
            misses.add(1, ordering: .relaxed)
        } else {
            hits.add(1, ordering: .relaxed)
        }
        return found
    }

    /// Lookups answered and not, since the start.
    package var counts: (hits: Int, misses: Int) { (hits.load(ordering: .relaxed), misses.load(ordering: .relaxed)) }

    /// Bytes of the representations kept.
    package var byteCount: Int { state.withLock { $0.bytes } }

    /// Keeps `representation` unless a change that touched it happened since `sequence`.
    package func offer(_ representation: CachedRepresentation, for key: ViewKey, builtAfter sequence: UInt64) {
        let size = representation.byteCount
        guard size <= budgetBytes / 4 else { return }
        state.withLock { state in
            guard state.holds(key, builtAfter: sequence) else { return }
            state.clock += 1
            let entry = Entry(representation: representation, lastUsed: state.clock, bytes: size)
            if let old = state.entries[key.user]?.updateValue(entry, forKey: key.topic) {
                state.bytes -= old.bytes
            } else {
                state.entries[key.user, default: [:]][key.topic] = entry
            }
            state.bytes += size
            if state.bytes > budgetBytes { evict(&state) }
        }
    }

    /// Drops what `changes` touched.
    /// Returns the versions it dropped, for the caller to free where it costs
    /// least: not under the lock, where readers wait, nor where the feed is applied.
    package func apply(_ changes: Set<TopicChange>) -> [CachedRepresentation] {
        var dropped: [CachedRepresentation] = []
        state.withLock { state in
            Self.remember(changes, users: [], in: &state)
            for change in changes {
                guard let user = state.entries.index(forKey: change.user) else { continue }
                // Changed where it is, through its index: the user's topics are neither copied nor hashed in again.
                for topic in state.entries.values[user].keys.filter({ change.touches($0) }) {
                    guard let entry = state.entries.values[user].removeValue(forKey: topic) else { continue }
                    state.bytes -= entry.bytes
                    dropped.append(entry.representation)
                }
                if state.entries.values[user].isEmpty { state.entries.remove(at: user) }
            }
        }
        return dropped
    }

    /// Drops every view model of `users`, whose changes this server passes
    /// over (`ServedUsers`); one built before is refused when offered.
    /// Returns the versions dropped, as `apply` does.
    package func forget(users: [Int]) -> [CachedRepresentation] {
        var dropped: [CachedRepresentation] = []
        state.withLock { state in
            Self.remember([], users: users, in: &state)
            for user in users {
                guard let topics = state.entries.removeValue(forKey: user) else { continue }
                for entry in topics.values {
                    state.bytes -= entry.bytes
                    dropped.append(entry.representation)
                }
            }
        }
        return dropped
    }

    /// A change made: a new sequence, remembered for the offers of builds begun before it.
    private static func remember(_ changes: Set<TopicChange>, users: [Int], in state: inout State) {
        state.sequence += 1
        if state.recentChanges.count == changesRemembered {
            state.rememberedSince = state.recentChanges.removeFirst().sequence
        }
        state.recentChanges.append((state.sequence, changes, users))
    }

    /// Drops everything and returns each view model's bytes as they were,
    /// when date texts roll over at midnight: a view built again to the same
    /// bytes need not be sent again.
    package func takeAll() -> [ViewKey: SharedBytes] {
        state.withLock { state in
            state.forgetEveryChange()
            var taken: [ViewKey: SharedBytes] = [:]
            for (user, topics) in state.entries {
                for (topic, entry) in topics { taken[ViewKey(user: user, topic: topic)] = entry.representation.identity }
            }
            state.entries.removeAll()
            state.bytes = 0
            return taken
        }
    }

    /// Drops everything.
    package func removeAll() {
        state.withLock { state in
            state.forgetEveryChange()
            state.entries.removeAll()
            state.bytes = 0
        }
    }

    /// Removes the least recently used entries until a quarter of the budget is free.
    private func evict(_ state: inout State) {
        var all: [(user: Int, topic: Topic, lastUsed: UInt64, bytes: Int)] = []
        for (user, topics) in state.entries {
            for (topic, entry) in topics { all.append((user, topic, entry.lastUsed, entry.bytes)) }
        }
        all.sort { $0.lastUsed < $1.lastUsed }
        for victim in all where state.bytes > budgetBytes * 3 / 4 {
            state.entries[victim.user]![victim.topic] = nil
            state.bytes -= victim.bytes
        }
    }
}
