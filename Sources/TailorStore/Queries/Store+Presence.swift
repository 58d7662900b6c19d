extension Store {
    /// Readies a PostgreSQL connection of its own for the servers' presence
    /// signals: named with `suffix` in `pg_stat_activity`, and listening on
    /// the schema's presence channel. Signals are notifications only:
    /// nothing of them is stored.
    public static func listenToPresence(on connection: PostgresConnection, namedWith suffix: String) throws {
        try connection.run("SELECT set_config('application_name', left(current_setting('application_name') || ?, 63), false)", suffix)
        let schema = try connection.first("SELECT current_schema()", binding: []) { $0.text(0) } ?? "public"
        try connection.execute("LISTEN \"" + presenceChannel(of: schema).split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\"")
    }

    /// Sends `payload` (at most 7,999 bytes) to every server listening for presence.
    public static func notifyPresence(_ payload: String, on connection: PostgresConnection) throws {
        _ = try connection.first("SELECT pg_notify('tailor_presence_' || current_schema(), ?)", payload) { _ in () }
    }

    /// One channel per schema, like the feed's.
    static func presenceChannel(of schema: String) -> String {
        "tailor_presence_" + schema
    }
}
