extension Store {
    /// The presence channel's name before its schema's.
    static let presenceChannel = "tailor_presence_"

    /// Readies a PostgreSQL connection of its own for the servers' presence
    /// signals: named with `suffix` in `pg_stat_activity`, and listening on
    /// the schema's presence channel. Signals are notifications only:
    /// nothing of them is stored.
    public static func listenToPresence(on connection: PostgresConnection, namedWith suffix: String) throws {
        try name(connection, with: suffix)
        try listen(on: connection, to: presenceChannel)
    }

    /// Whether `channel` is the one presence signals come on (whatever the schema).
    public static func isPresenceChannel(_ channel: String) -> Bool {
        channel.hasPrefix(presenceChannel)
    }

    /// Sends `payload` (at most 7,999 bytes) to every server listening for presence.
    public static func notifyPresence(_ payload: String, on connection: PostgresConnection) throws {
        _ = try connection.first("SELECT pg_notify(? || current_schema(), ?)", presenceChannel, payload) { _ in () }
    }
}
