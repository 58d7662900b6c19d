import TailorLoop

/// The CPU one of the server's threads (or its anonymous workers together)
/// spent during a run, per message: the busiest serial thread's share is the
/// run's serial ceiling, the rate no number of cores lifts while that thread
/// does the same work per message.
struct ThreadLoad: Encodable {
    let name: String
    let cpuPercent: Double
    let microsecondsPerMessage: Double
    /// Its context switches per message, waiting and pre-empted.
    let voluntarySwitchesPerMessage: Double
    let forcedSwitchesPerMessage: Double

    /// The CPU seconds each thread name spent between two readings of
    /// `ProcessProbe.threadCPUSeconds`. A thread that ended in between is
    /// missing from `after`, and counts nothing.
    static func spent(from before: [String: Double], to after: [String: Double]) -> [String: Double] {
        after.reduce(into: [:]) { spent, thread in spent[thread.key] = max(thread.value - before[thread.key, default: 0], 0) }
    }

    /// Every thread's load over `seconds` in which `messages` were accepted,
    /// busiest first: from two readings of `ProcessProbe.threadCPUSeconds`
    /// and of `ProcessProbe.threadContextSwitches`.
    static func loads(from before: [String: Double], to after: [String: Double],
                      switchesFrom switchesBefore: [String: ProcessProbe.ContextSwitches], to switchesAfter: [String: ProcessProbe.ContextSwitches],
                      seconds: Double, messages: Int) -> [ThreadLoad] {
        let perMessage = 1 / Double(max(messages, 1))
        return spent(from: before, to: after)
            .map { name, cpu in
                let (was, now) = (switchesBefore[name] ?? .init(), switchesAfter[name] ?? .init())
                return ThreadLoad(name: name, cpuPercent: cpu / seconds * 100, microsecondsPerMessage: cpu * 1e6 * perMessage,
                                  voluntarySwitchesPerMessage: Double(max(now.voluntary - was.voluntary, 0)) * perMessage,
                                  forcedSwitchesPerMessage: Double(max(now.forced - was.forced, 0)) * perMessage)
            }
            .sorted { $0.cpuPercent > $1.cpuPercent }
    }

    /// Whether the thread is one of a numbered set (`loop-0`, `loop-1`,
    /// `read-2`, `gzip-3`): pools the server sizes by its cores, sharing their
    /// work out, so more cores lift their limit (`files-0`, a pool of one for
    /// disk reads, is off the path of messages). A thread with a plain name
    /// (`writer`, `feed`) is the one of its kind in a server.
    var isNumbered: Bool {
        guard let dash = name.lastIndex(of: "-") else { return false }
        let number = name[name.index(after: dash)...]
        return !number.isEmpty && number.allSatisfy(\.isNumber)
    }

    /// The busiest serial thread of `loads` (busiest first), and the messages
    /// per second at which it would need a whole core; nil when no such thread
    /// did any work. Libdispatch's anonymous workers, shown together under the
    /// process's name, count as one thread: the report cannot tell them apart.
    static func serialCeiling(of loads: [ThreadLoad]) -> (rate: Double, thread: String)? {
        guard let busiest = loads.first(where: { !$0.isNumbered }), busiest.microsecondsPerMessage > 0 else { return nil }
        return (1e6 / busiest.microsecondsPerMessage, busiest.name)
    }
}
