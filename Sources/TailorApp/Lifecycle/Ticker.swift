import TailorLoop
import TailorStreams
import TailorViews

/// Work done again and again on a loop, between pauses that `pause` gives
/// (in milliseconds), from its start until it is stopped.
final class Ticker: Sendable {
    let name: String
    private let loop: EventLoop
    private let pause: @Sendable () -> Int
    private let tick: @Sendable () -> Void

    init(_ name: String, on loop: EventLoop, pause: @escaping @Sendable () -> Int, tick: @escaping @Sendable () -> Void) {
        self.name = name
        self.loop = loop
        self.pause = pause
        self.tick = tick
    }

    var part: Part {
        Part(name, start: { self.start() })
    }

    /// Ticks until the returned stop is called.
    func start() -> Part.Stop {
        let (pause, tick, loop) = (pause, tick, loop)
        let ticking = Task(executorPreference: loop) {
            while true {
                do {
                    try await loop.sleep(for: .milliseconds(pause()))
                } catch {
                    return  // stopped
                }
                tick()
            }
        }
        return { ticking.cancel() }
    }

    /// Date texts ("14:05" becomes "Yesterday") change at midnight, not on
    /// writes: cached view models are dropped and followed ones sent anew.
    static func midnight(dates: DateText, cache: ViewCache, streams: EventStreams, now: @escaping @Sendable () -> Int, on loop: EventLoop) -> Ticker {
        Ticker("midnight", on: loop, pause: { dates.millisecondsUntilMidnight(now: now()) + 10 }) {
            rebuildAsAtMidnight(cache: cache, streams: streams)
        }
    }

    /// Drops every cached view model and builds every followed one again; a
    /// stream gets only those whose bytes changed (a date text).
    static func rebuildAsAtMidnight(cache: ViewCache, streams: EventStreams) {
        streams.republishAll(unlessSameAs: cache.takeAll())
    }

    /// A comment on every stream every `seconds`, so that proxies keep quiet streams open.
    static func heartbeat(every seconds: Double, streams: EventStreams, on loop: EventLoop) -> Ticker {
        Ticker("heartbeat", on: loop, pause: { Int(seconds * 1000) }) { streams.heartbeat() }
    }
}
