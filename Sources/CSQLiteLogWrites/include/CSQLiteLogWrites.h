#ifndef CSQLITELOGWRITES_H
#define CSQLITELOGWRITES_H

/// The name of a SQLite VFS that is the platform's default in all but one
/// thing: the frames a commit appends to a write-ahead log reach the file in
/// one write instead of two per page. Registered on the first call; NULL when
/// it could not be (then the default VFS serves, which is always correct).
const char *tailor_sqlite_log_writes_vfs(void);

#endif
