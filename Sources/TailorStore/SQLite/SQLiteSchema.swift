/// The SQLite schema as a list of migrations; `PRAGMA user_version` records how
/// many have been applied. A new version appends a migration, never edits one.
public enum SQLiteSchema {
    static let migrations: [String] = [
        // 1: accounts, chats, messages, orders; the chatbot user exists from the start.
        """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE tokens (
            hash BLOB PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE chats (
            id INTEGER PRIMARY KEY,
            user_a INTEGER NOT NULL REFERENCES users(id),
            user_b INTEGER NOT NULL REFERENCES users(id),
            created_at INTEGER NOT NULL,
            last_activity_at INTEGER NOT NULL,
            CHECK (user_a < user_b),
            UNIQUE (user_a, user_b)
        );
        CREATE INDEX chats_user_b ON chats(user_b);
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
            sender_id INTEGER NOT NULL REFERENCES users(id),
            text TEXT NOT NULL,
            client_id TEXT,
            sent_at INTEGER NOT NULL,
            read_at INTEGER
        );
        CREATE INDEX messages_chat ON messages(chat_id, id);
        CREATE UNIQUE INDEX messages_client_id ON messages(chat_id, sender_id, client_id) WHERE client_id IS NOT NULL;
        CREATE INDEX messages_unread ON messages(chat_id, sender_id) WHERE read_at IS NULL;
        CREATE TABLE orders (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id),
            name TEXT NOT NULL,
            currency TEXT NOT NULL,
            status TEXT NOT NULL,
            total_cents INTEGER NOT NULL,
            item_count INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX orders_user ON orders(user_id, id);
        CREATE TABLE order_items (
            order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            title TEXT NOT NULL,
            quantity INTEGER NOT NULL,
            price_cents INTEGER NOT NULL,
            PRIMARY KEY (order_id, position)
        ) WITHOUT ROWID;
        INSERT INTO users (name, name_key, created_at) VALUES ('bot', 'bot', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
        """,
        // 2: a chat screen learns which messages it shows, and their states,
        // from one index alone, without a table lookup per message; unread
        // counts likewise from the unread messages' index alone.
        """
        CREATE INDEX messages_page ON messages(chat_id, id, sender_id, read_at);
        DROP INDEX messages_chat;
        DROP INDEX messages_unread;
        CREATE INDEX messages_unread ON messages(chat_id, sender_id, read_at) WHERE read_at IS NULL;
        """,
        // 3: ids are never used twice. Without AUTOINCREMENT, SQLite gives a new
        // row the largest id plus one, so deleting the newest order and placing
        // another gave the new one the deleted one's id: a stream told that
        // order 2 was deleted then heard of a different order 2. Each table is
        // copied into one that remembers its highest id ever. Runs with foreign
        // keys off (see `migrate`), so dropping a table deletes nothing else.
        // `readiness` is the row `/readyz` writes to prove that writes commit.
        """
        CREATE TABLE users_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL
        );
        INSERT INTO users_new SELECT id, name, name_key, created_at FROM users;
        DROP TABLE users;
        ALTER TABLE users_new RENAME TO users;

        CREATE TABLE chats_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_a INTEGER NOT NULL REFERENCES users(id),
            user_b INTEGER NOT NULL REFERENCES users(id),
            created_at INTEGER NOT NULL,
            last_activity_at INTEGER NOT NULL,
            CHECK (user_a < user_b),
            UNIQUE (user_a, user_b)
        );
        INSERT INTO chats_new SELECT id, user_a, user_b, created_at, last_activity_at FROM chats;
        DROP TABLE chats;
        ALTER TABLE chats_new RENAME TO chats;
        CREATE INDEX chats_user_b ON chats(user_b);

        CREATE TABLE messages_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
            sender_id INTEGER NOT NULL REFERENCES users(id),
            text TEXT NOT NULL,
            client_id TEXT,
            sent_at INTEGER NOT NULL,
            read_at INTEGER
        );
        INSERT INTO messages_new SELECT id, chat_id, sender_id, text, client_id, sent_at, read_at FROM messages;
        DROP TABLE messages;
        ALTER TABLE messages_new RENAME TO messages;
        CREATE INDEX messages_page ON messages(chat_id, id, sender_id, read_at);
        CREATE UNIQUE INDEX messages_client_id ON messages(chat_id, sender_id, client_id) WHERE client_id IS NOT NULL;
        CREATE INDEX messages_unread ON messages(chat_id, sender_id, read_at) WHERE read_at IS NULL;

        CREATE TABLE orders_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id INTEGER NOT NULL REFERENCES users(id),
            name TEXT NOT NULL,
            currency TEXT NOT NULL,
            status TEXT NOT NULL,
            total_cents INTEGER NOT NULL,
            item_count INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        );
        INSERT INTO orders_new SELECT id, user_id, name, currency, status, total_cents, item_count, created_at FROM orders;
        DROP TABLE orders;
        ALTER TABLE orders_new RENAME TO orders;
        CREATE INDEX orders_user ON orders(user_id, id);

        CREATE TABLE readiness (id INTEGER PRIMARY KEY CHECK (id = 1), checked_at INTEGER NOT NULL);
        INSERT INTO readiness VALUES (1, 0);
        """,
        // 4: browser sessions, each with a token of its own, so that signing
        // out ends one browser's session and not the account's token.
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            token_hash BLOB NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            user_agent TEXT NOT NULL
        );
        CREATE INDEX sessions_user ON sessions(user_id);
        """,
        // 5: the change feed: each commit that changed what users see, at its
        // position, which orders commits and is the id of stream events. One
        // server owns a SQLite file and hands its entries on itself: `body`,
        // what the changes were, is left empty here. No AUTOINCREMENT: its
        // counter is one more row to write at every commit, and the newest
        // entry is never pruned, so the largest key plus one never goes back.
        """
        CREATE TABLE changes (
            position INTEGER PRIMARY KEY,
            body BLOB NOT NULL
        );
        """,
        // 6: a chat's last activity is its last message's time, read with it:
        // keeping a copy in the chat's row made every message update that row,
        // and two servers' batches then waited on each other's rows.
        """
        ALTER TABLE chats DROP COLUMN last_activity_at;
        """,
        // 7: one server owns a SQLite file, so its feed needs no entries, only
        // positions that never go back: handed out from memory and reserved
        // here a block at a time (see `FeedAppender`), not a row per commit.
        """
        CREATE TABLE feed_reserved (position INTEGER NOT NULL);
        INSERT INTO feed_reserved SELECT coalesce(max(position), 0) FROM changes;
        DROP TABLE changes;
        """,
        // 8: a password a user may set, as a stored hash (see `PasswordHasher`).
        """
        ALTER TABLE users ADD COLUMN password_hash TEXT;
        """,
        // 9: what an order's search looks in, folded in Swift (`SearchKey`):
        // SQLite's lower() folds ASCII only. Orders stored before get theirs
        // after the migration (`Store.keyUnkeyedOrders`), found by the index.
        """
        ALTER TABLE orders ADD COLUMN search_key TEXT;
        CREATE INDEX orders_unkeyed ON orders(id) WHERE search_key IS NULL;
        """,
        // 10: read state as a cursor per chat member (see `Store.markRead`):
        // marking read updates one row, not every message read. Each member's
        // cursor stops before the first message of the other's not yet read;
        // with every message read, at the chat's newest.
        """
        CREATE TABLE chat_members (
            chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
            user_id INTEGER NOT NULL REFERENCES users(id),
            read_through INTEGER NOT NULL,
            PRIMARY KEY (chat_id, user_id)
        ) WITHOUT ROWID;
        CREATE INDEX chat_members_user ON chat_members(user_id);
        \(SharedMigrations.readCursorsFromReadMarks)
        DROP INDEX messages_unread;
        DROP INDEX messages_page;
        ALTER TABLE messages DROP COLUMN read_at;
        CREATE INDEX messages_page ON messages(chat_id, id, sender_id);
        """,
        // 11: Web Push: the server's key, browsers' subscriptions (ended with
        // their session), and the pushes waiting to be delivered (see
        // `Store+Push`), which outlive the server that queued them.
        """
        CREATE TABLE push_key (id INTEGER PRIMARY KEY CHECK (id = 1), private_key BLOB NOT NULL);
        CREATE TABLE push_subscriptions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            session_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
            endpoint TEXT NOT NULL UNIQUE,
            p256dh BLOB NOT NULL,
            auth BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX push_subscriptions_user ON push_subscriptions(user_id);
        CREATE INDEX push_subscriptions_session ON push_subscriptions(session_id);
        CREATE TABLE push_outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            subscription_id INTEGER NOT NULL REFERENCES push_subscriptions(id) ON DELETE CASCADE,
            message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            due_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            claim INTEGER
        );
        CREATE INDEX push_outbox_due ON push_outbox(due_at);
        CREATE INDEX push_outbox_subscription ON push_outbox(subscription_id);
        CREATE INDEX push_outbox_message ON push_outbox(message_id);
        """,
        // 12: when each user was last seen: written once when their last event
        // stream closes, not per stream (see `Store.recordLastSeen`).
        """
        ALTER TABLE users ADD COLUMN last_seen_at INTEGER;
        """,
        // 13: since when pushes to a subscription fail, so that one that keeps
        // failing is removed after a bounded time (see `Store.recordSubscriptionFailing`).
        """
        ALTER TABLE push_subscriptions ADD COLUMN failing_since INTEGER;
        """,
        // 14: a user's privacy setting, an account an operator disabled, and
        // a chat member who blocked the other.
        """
        ALTER TABLE users ADD COLUMN show_presence INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE users ADD COLUMN disabled_at INTEGER;
        ALTER TABLE chat_members ADD COLUMN blocked_at INTEGER;
        """,
        // 15: the feed position of the commit that stored each message: one
        // server owns the file and keeps no entries, so this is how the
        // notifications of messages from before a restart are found again
        // (`Store.recentNotifications`). Messages stored before have none.
        """
        ALTER TABLE messages ADD COLUMN position INTEGER;
        """,
    ]

    /// The version a database has once every migration is applied.
    public static var currentVersion: Int { migrations.count }

    /// Brings the database up to `currentVersion`, each migration in its own
    /// transaction. A database newer than this program is refused.
    public static func migrate(_ connection: SQLiteConnection) throws {
        let version = try connection.pragma("user_version")
        guard version <= migrations.count else {
            throw SchemaError.newerThanProgram(database: version, program: migrations.count)
        }
        if version < migrations.count { try apply(from: version, on: connection) }
        // Also after a start that stopped while keying: what is left is keyed now.
        try Store.keyUnkeyedOrders(on: connection)
    }

    /// Applies the migrations after `version`, each in its own transaction.
    private static func apply(from version: Int, on connection: SQLiteConnection) throws {
        // Migrations rebuild tables; with foreign keys on, dropping the old
        // table would delete the rows that refer to it. The pragma is a no-op
        // inside a transaction, so it is set around them, and each migration
        // proves before its commit that every reference still holds.
        try connection.execute("PRAGMA foreign_keys = OFF")
        for (index, migration) in migrations.enumerated() where index >= version {
            try connection.transaction {
                try connection.execute(migration)
                if let broken = try connection.first("PRAGMA foreign_key_check", row: { $0.text(0) }) {
                    throw SchemaError.brokenReference(table: broken)
                }
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
        }
        try connection.execute("PRAGMA foreign_keys = ON")
    }
}
