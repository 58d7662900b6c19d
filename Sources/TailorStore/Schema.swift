/// The database schema as a list of migrations; `PRAGMA user_version` records how
/// many have been applied. A new version appends a migration, never edits one.
public enum Schema {
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
        for (index, migration) in migrations.enumerated() where index >= version {
            try connection.transaction {
                try connection.execute(migration)
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }
}

public enum SchemaError: Error, CustomStringConvertible {
    case newerThanProgram(database: Int, program: Int)

    public var description: String {
        switch self {
        case .newerThanProgram(let database, let program):
            "the database has schema version \(database), newer than this program's \(program)"
        }
    }
}
