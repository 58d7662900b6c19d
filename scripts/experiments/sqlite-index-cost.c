// The measurement behind "each costs 6–10 µs per message" (an index on
// messages) in README.
// Messages inserted into the server's schema (same tables, indexes and
// statement) in transactions of five, through the server's VFS, on a fresh
// file; prints the thread's CPU per message. The argument leaves indexes out:
// 0 all of them, 1 without messages_unread, 3 without messages_page too.
// Not part of the server or its build:
//
//   cc -O2 -o /tmp/sqlite-index-cost -I Sources/CSQLiteLogWrites/include \
//       scripts/experiments/sqlite-index-cost.c Sources/CSQLiteLogWrites/CSQLiteLogWrites.c -lsqlite3
//   for run in 1 2 3; do for drop in 0 1 3; do rm -f /tmp/index-cost.db*; /tmp/sqlite-index-cost $drop /tmp/index-cost.db; done; done
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sqlite3.h>
#include "CSQLiteLogWrites.h"

static double cpu_seconds(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s DROP FILE\n", argv[0]); return 2; }
    int drop = atoi(argv[1]);
    sqlite3 *db;
    if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, tailor_sqlite_log_writes_vfs()) != SQLITE_OK) return 1;
    char *error = NULL;
    const char *schema =
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
        "CREATE TABLE users(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);"
        "CREATE TABLE chats(id INTEGER PRIMARY KEY AUTOINCREMENT, user_a INTEGER REFERENCES users(id), user_b INTEGER REFERENCES users(id));"
        "CREATE TABLE messages(id INTEGER PRIMARY KEY AUTOINCREMENT, chat_id INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,"
        " sender_id INTEGER NOT NULL REFERENCES users(id), text TEXT NOT NULL, client_id TEXT, sent_at INTEGER NOT NULL, read_at INTEGER);"
        "CREATE INDEX messages_page ON messages(chat_id, id, sender_id, read_at);"
        "CREATE UNIQUE INDEX messages_client_id ON messages(chat_id, sender_id, client_id) WHERE client_id IS NOT NULL;"
        "CREATE INDEX messages_unread ON messages(chat_id, sender_id, read_at) WHERE read_at IS NULL;"
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000) INSERT INTO users(name) SELECT 'u' || x FROM n;"
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000)"
        " INSERT INTO chats(user_a, user_b) SELECT x % 1000 + 1, (x * 7) % 1000 + 1 FROM n;";
    if (sqlite3_exec(db, schema, NULL, NULL, &error) != SQLITE_OK) { fprintf(stderr, "%s\n", error); return 1; }
    if (drop & 1) sqlite3_exec(db, "DROP INDEX messages_unread", NULL, NULL, NULL);
    if (drop & 2) sqlite3_exec(db, "DROP INDEX messages_page", NULL, NULL, NULL);
    sqlite3_stmt *insert, *begin, *commit;
    sqlite3_prepare_v2(db, "INSERT INTO messages (chat_id, sender_id, text, client_id, sent_at) VALUES (?, ?, ?, ?, ?)"
                           " ON CONFLICT (chat_id, sender_id, client_id) WHERE client_id IS NOT NULL DO NOTHING RETURNING id", -1, &insert, NULL);
    sqlite3_prepare_v2(db, "BEGIN", -1, &begin, NULL);
    sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL);
    srand(1);
    double started = cpu_seconds();
    int messages = 0;
    for (int batch = 0; batch < 20000; batch++) {
        sqlite3_step(begin); sqlite3_reset(begin);
        for (int j = 0; j < 5; j++) {
            char clientID[40];
            snprintf(clientID, sizeof clientID, "client-%d-%d", batch, j);
            sqlite3_bind_int(insert, 1, rand() % 3000 + 1);
            sqlite3_bind_int(insert, 2, rand() % 1000 + 1);
            sqlite3_bind_text(insert, 3, "hello there, this is a message of some length", -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 4, clientID, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(insert, 5, 1700000000000LL + batch);
            while (sqlite3_step(insert) == SQLITE_ROW) {}
            sqlite3_reset(insert);
            messages++;
        }
        sqlite3_step(commit); sqlite3_reset(commit);
        // The server's checkpoints run on a thread of their own; here, in line, now and then.
        if (batch % 2000 == 1999) sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    }
    printf("without %s: %.1f µs per message\n", drop == 0 ? "none" : drop == 1 ? "messages_unread" : "messages_unread, messages_page",
           (cpu_seconds() - started) / messages * 1e6);
    sqlite3_close(db);
    return 0;
}
