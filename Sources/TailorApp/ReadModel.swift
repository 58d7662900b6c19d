import TailorLoop
import TailorPush
import TailorStore
import TailorViews

/// What the server reads its view models from, made once at the start: the
/// kept chats, the view cache and the builder over both, presence, the
/// date texts of the server's time zone; and the few rows every part needs
/// from the database (the bot, the push key).
struct ReadModel: Sendable {
    let botID: Int
    let pushKey: VAPIDKey
    let cache: ViewCache
    let directory: ChatDirectory
    let credentials: CredentialCache
    let presence: Presence
    let dates: DateText
    let views: ViewModelBuilder

    init(configuration: TailorConfiguration, database: Database, store: Store, now: @escaping @Sendable () -> Int) throws {
        guard let zone = TimeZoneRules.named(configuration.timeZone) else {
            throw ConfigurationError("unknown time zone \(configuration.timeZone): use an IANA name such as Europe/Berlin "
                + "(the tz database in /usr/share/zoneinfo comes with Debian's tzdata package)")
        }
        guard let bot = try store.user(named: User.botName) else { throw ConfigurationError("the database has no bot user") }
        botID = bot.id
        pushKey = try Self.pushKey(configuration.push, store: store)
        dates = DateText(zone: zone)
        cache = ViewCache(budgetBytes: configuration.viewCacheBudget)
        directory = ChatDirectory(chatBudget: configuration.keptChatBudget)
        credentials = CredentialCache()
        presence = Presence(PresenceTracker(server: String(UInt64.random(in: 1...UInt64.max), radix: 36),
                                            settings: configuration.presenceSettings, alwaysOnline: [bot.id]))
        views = ViewModelBuilder(database: database, cache: cache, directory: directory, presence: presence, dates: dates, now: now)
    }

    /// The server's VAPID key: from the file given, else the one kept in the
    /// database, made at the first start.
    private static func pushKey(_ settings: PushSettings, store: Store) throws -> VAPIDKey {
        guard let path = settings.keyFile else {
            return try VAPIDKey(rawRepresentation: try store.keepPushKey(VAPIDKey().rawRepresentation))
        }
        guard let pem = SmallFile.read(path, limit: 64 * 1024) else { throw ConfigurationError("the VAPID key file \(path) cannot be read") }
        do {
            return try VAPIDKey(pem: String(decoding: pem, as: UTF8.self))
        } catch {
            throw ConfigurationError("the VAPID key file \(path) holds no P-256 private key in PEM: \(error)")
        }
    }
}
