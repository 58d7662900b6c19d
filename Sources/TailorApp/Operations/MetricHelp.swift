/// What each figure of `/metrics` means: its `# HELP` line. The registry
/// writes each figure's `# TYPE` line; the help is written before it from
/// here, since swift-prometheus takes help texts only for figures made
/// through its own registry calls, and ours are made through swift-metrics.
enum MetricHelp {
    static let texts: [String: String] = [
        "tailor_http_requests_total": "Answers by route pattern (static for files, unmatched for none) and status class.",
        "tailor_http_request_seconds": "Time from the parsed request to its answer, by route pattern.",
        "tailor_connections_open": "Open connections.",
        "tailor_streams_open": "Open event streams.",
        "tailor_presence_users_online": "Users shown online, with a stream open on any server (the chatbot not counted).",
        "tailor_presence_other_servers": "Other servers whose presence signals were heard within their lifetime (PostgreSQL).",
        "tailor_stream_topics_followed": "Topics followed by event streams, each user's counted apart.",
        "tailor_stream_held_bytes": "Bytes of events queued for streams and not yet written.",
        "tailor_streams_ended_slow_total": "Event streams ended for reading too slowly.",
        "tailor_stream_events_published_total": "Events made for changes, each once however many streams it went to.",
        "tailor_writer_commit_rest_seconds": "Seconds the writer rests after a batch, for more writes to share the next commit: the commit delay times the servers following the database, up to 4.",
        "tailor_writer_batch_events": "Events per batch the writer committed.",
        "tailor_writer_batch_seconds": "Time to write and commit a batch.",
        "tailor_feed_applied_position": "The change feed's position this server has applied.",
        "tailor_feed_lag_positions": "How far the latest feed position this server has seen is ahead of the one applied.",
        "tailor_feed_reads_total": "Reads of the change feed by the follower (PostgreSQL).",
        "tailor_feed_applies_total": "Times the follower applied entries it knew without a read, however many at once (PostgreSQL).",
        "tailor_feed_entries_read_total": "Other servers' entries the follower read back from PostgreSQL: no notification carried them, or one was lost (PostgreSQL).",
        "tailor_feed_entries_passed_over_total": "Entries of the feed passed over undecoded or unapplied: they touch no user served here (PostgreSQL).",
        "tailor_served_users": "Users served here: a stream of theirs is open, or closed or a request of theirs came within the grace.",
        "tailor_feed_bodies_heard_total": "Other servers' entries that came whole with their notification (PostgreSQL's or the bus's).",
        "tailor_feed_stubs_heard_total": "Other servers' commits heard of by their stub alone on the bus: they touch no user served here, or one who came to be served as they were made.",
        "tailor_bus_routes_by_interest": "Whether this server's commits go whole only to the servers that serve their users (1), or to every server (0: a server that does not route by interest is heard, or the first presence lifetime).",
        "tailor_bus_interested_servers": "Other servers heard on the bus saying whom they serve.",
        "tailor_bus_typing_hearers": "Other servers heard on the bus saying they hear typing there: a typing signal goes only to its contact's servers once each of them does.",
        "tailor_bus_connected": "Whether the connection to the bus is up (--bus): 1 or 0.",
        "tailor_bus_subscriptions": "Subjects this server listens to on the bus.",
        "tailor_bus_postgres_notifications": "Whether this server's commits are also notified through PostgreSQL now (1): the bus is away, or a server not on it may follow the feed.",
        "tailor_bus_messages_published_total": "Commits' notifications published on the bus.",
        "tailor_bus_messages_not_published_total": "Notifications the bus refused (closed, or its buffer for a reconnection full): the other servers read the feed instead.",
        "tailor_bus_messages_received_total": "Notifications received from the bus.",
        "tailor_bus_disconnections_total": "Times the connection to the bus was lost.",
        "tailor_view_cache_hits_total": "View-model cache lookups that found a version.",
        "tailor_view_cache_misses_total": "View-model cache lookups that found none.",
        "tailor_view_cache_bytes": "Bytes of view models in the cache.",
        "tailor_kept_users": "Users whose chats are kept in memory, changed in place with the feed.",
        "tailor_kept_chats": "Chats kept in memory for their users' lists, badges and screens.",
        "tailor_kept_chat_bytes": "Memory of the kept chats, about: a quarter of --memory-budget at most.",
        "tailor_kept_users_let_go_total": "Users whose kept chats were let go, to stay within the budget, after a change made their list stale, or once no stream of theirs is served here.",
        "tailor_kept_users_read_again_total": "Users read from the database again to be kept, after they were let go.",
        "tailor_checkpoints_total": "SQLite checkpoints on their own thread.",
        "tailor_checkpoints_by_writer_total": "SQLite checkpoints the writer made itself, the log having grown past its limit.",
        "tailor_sqlite_log_frames": "Frames in SQLite's write-ahead log after the last commit.",
        "tailor_push_sent_total": "Pushes posted to push services, by result: delivered, retried, failed (no answer), gone (subscription removed), refused, unusable.",
        "tailor_build_info": "This build's version, as a label; always 1.",
        "process_cpu_seconds_total": "CPU time of the process, user and system.",
        "process_resident_memory_bytes": "Resident memory of the process.",
        "process_open_fds": "Open file descriptors of the process.",
        "process_start_time_seconds": "When the server started, in seconds since 1970.",
    ]

    /// `exposition` with a `# HELP` line before each figure's `# TYPE` line.
    static func added(to exposition: [UInt8]) -> [UInt8] {
        let typePrefix = Array("# TYPE ".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(exposition.count + texts.count * 80)
        var lineStart = exposition.startIndex
        while lineStart < exposition.endIndex {
            let lineEnd = exposition[lineStart...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? exposition.endIndex
            let line = exposition[lineStart..<lineEnd]
            if line.starts(with: typePrefix) {
                let name = String(decoding: line.dropFirst(typePrefix.count).prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
                if let text = texts[name] { result.append(contentsOf: Array("# HELP \(name) \(text)\n".utf8)) }
            }
            result.append(contentsOf: line)
            lineStart = lineEnd
        }
        return result
    }
}
