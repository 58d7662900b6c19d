/// When to give free heap memory back to the system. glibc keeps memory that
/// was freed inside its heaps (one per thread that allocates much, each cut
/// back on its own only past 8 MiB free at its top: see `CSystem`), so the
/// resident size of a long run stays above the memory in use by what its heaps
/// hold free. A trim gives that back (free memory scattered between live
/// blocks it cannot). Two occasions call for one: many connections closed at once
/// (a burst of clients gone, streams ended for their memory), and the resident
/// size grown by a step since the last trim.
struct MemoryUpkeep {
    /// Closed connections after which free memory is given back.
    static let connectionsFreedBeforeTrim = 256
    /// Growth of the resident size since the last trim after which free
    /// memory is given back: a trim that finds little to give back is not
    /// tried again until the process grew this much more.
    static let residentGrowthBeforeTrim = 8 * 1024  // KiB

    private var peakConnections: Int
    private var residentAfterTrim: Int  // KiB

    init(openConnections: Int, residentKiB: Int) {
        peakConnections = openConnections
        residentAfterTrim = residentKiB
    }

    /// Whether free memory should be given back now.
    mutating func shouldTrim(openConnections: Int, residentKiB: Int) -> Bool {
        defer { peakConnections = max(peakConnections, openConnections) }
        return peakConnections - openConnections >= Self.connectionsFreedBeforeTrim
            || residentKiB - residentAfterTrim >= Self.residentGrowthBeforeTrim
    }

    /// Free memory was given back; the counts start again from here.
    mutating func trimmed(openConnections: Int, residentKiB: Int) {
        peakConnections = openConnections
        residentAfterTrim = residentKiB
    }
}
