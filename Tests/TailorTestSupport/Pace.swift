import Glibc

/// The rhythm of a test that plays a user acting at a rate (a sender every
/// 10 ms, a composer typing every 300 ms, a client asking again after the
/// Retry-After it was given). Beats are counted from the start, so a slow step
/// shortens the next wait instead of slowing the rate.
public struct Pace {
    public let interval: Double
    private var nextBeat: Double

    public init(every seconds: Double) {
        interval = seconds
        nextBeat = secondsNow() + seconds
    }

    /// Returns at the next beat; at once when a step ran past it, and the
    /// beats after it start from now.
    public mutating func wait() {
        let now = secondsNow()
        if nextBeat > now {
            // Sleeps: a rate is the one thing here that is made of time.
            usleep(UInt32((nextBeat - now) * 1_000_000))
            nextBeat += interval
        } else {
            nextBeat = now + interval
        }
    }
}

/// Spins for `microseconds`: the offset at which a test runs one side of a
/// race, exact to a few microseconds where a sleep would round up to the
/// kernel's timer slack (50 µs) and give the thread away.
public func spin(microseconds: Double) {
    let end = secondsNow() + microseconds / 1_000_000
    while secondsNow() < end {}
}
