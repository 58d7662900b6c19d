import Logging
import TailorBus
import TailorFeed
import TailorStore

/// The servers of one PostgreSQL database on a NATS bus (`--bus`): each
/// commit's notification goes on the bus, to the subject of the database's
/// schema, and every server's follower takes what comes there as it takes
/// PostgreSQL's notifications. PostgreSQL then signals no listening server at
/// each commit, which costs it at every server added; it still notifies
/// while a server that is not on the bus may follow the feed (presence's
/// heartbeats tell: `PresenceSignal.onBus`), so that servers of an earlier
/// version, or started without the bus, beside these lose no wake-up.
struct FeedBus {
    let bus: NatsBus
    let announcement: FeedAnnouncement

    /// The bus of `configuration`, subscribed for `follower`; nil without one.
    static func connect(configuration: TailorConfiguration, schema: String, name: String, follower: FeedFollower,
                        everyServerIsOnBus: @escaping @Sendable () -> Bool, logger: Logger) throws -> FeedBus? {
        guard !configuration.bus.isEmpty else { return nil }
        let bus = try NatsBus(urls: configuration.bus, name: "tailor-\(name)", logger: logger)
        let subject = subject(forSchema: schema)
        try bus.subscribe(to: subject) { follower.heardOnBus($0) }
        // Also while the bus is away: the others hear of commits at once all the same.
        let announcement = FeedAnnouncement(notifiesPostgres: { !bus.isConnected || !everyServerIsOnBus() },
                                            publish: { bus.publish($0, to: subject) })
        return FeedBus(bus: bus, announcement: announcement)
    }

    /// `tailor.feed.` and the schema, whose characters other than letters,
    /// digits, `-` and `_` (a `.` splits a NATS subject) are written `_`.
    static func subject(forSchema schema: String) -> String {
        "tailor.feed." + String(schema.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
    }
}
