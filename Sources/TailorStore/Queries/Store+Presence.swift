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

    /// Sends `payloads` (each at most 7,999 bytes, none twice, none with a
    /// line break) to every server listening for presence, in one statement
    /// and so one transaction: PostgreSQL delivers them together, in order,
    /// at one wake-up of each listener. (Of a payload sent twice in one
    /// transaction it delivers one: the caller splits there.)
    public static func notifyPresence(_ payloads: [String], on connection: PostgresConnection) throws {
        _ = try connection.query("SELECT pg_notify(? || current_schema(), p) FROM unnest(string_to_array(?, chr(10))) AS p",
                                 binding: [presenceChannel, payloads.joined(separator: "\n")]) { _ in () }
    }
}
