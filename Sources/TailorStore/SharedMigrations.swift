/// Statements that both engines' migrations run alike.
enum SharedMigrations {
    /// Read cursors from read marks per message (SQLite's migration 10,
    /// PostgreSQL's 7): each member's cursor stops just before the first
    /// message of the other's not yet read; with every message read, at the
    /// chat's newest.
    static let readCursorsFromReadMarks = """
        INSERT INTO chat_members (chat_id, user_id, read_through)
        SELECT member.chat_id, member.user_id, coalesce(
            (SELECT min(id) - 1 FROM messages WHERE chat_id = member.chat_id AND sender_id <> member.user_id AND read_at IS NULL),
            (SELECT max(id) FROM messages WHERE chat_id = member.chat_id), 0)
        FROM (SELECT id AS chat_id, user_a AS user_id FROM chats UNION ALL SELECT id, user_b FROM chats) member;
        """
}
