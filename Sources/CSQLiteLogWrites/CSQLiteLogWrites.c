// A write-ahead log grows by frames, each a 24-byte header and a page, and
// SQLite writes each frame as two `pwrite`s: a commit of fifteen pages costs
// thirty system calls, nearly a quarter of the writer's time under a steady
// stream of messages. This VFS, the default one for every other file, holds
// the log's contiguous appends back and writes them together: when the page
// of a commit frame (a header whose database size is not zero) is appended,
// everything held goes in one call, and that call's result is the commit's.
//
// Why nothing is ever seen before it is written: a commit is published in the
// wal-index (shared memory) only after its last frame's write returns, and
// that write is the one that passes everything on. Frames written without a
// commit (a transaction spilling its cache) are published by no one until
// their commit frame comes. A commit frame's header that does not follow held
// frames is written at once: SQLite also rewrites headers in place (their
// checksums, when a transaction that spilled its cache commits), and no page
// follows such a header to pass it on. Every other use of the log file (read,
// size, sync, truncate, close, file control) and every write not contiguous
// with those held first passes on what is held, in order, so the file always
// reads as if each write had gone through at once; and an error in passing on
// is the error of the call that caused it, where SQLite expects one.

#include "CSQLiteLogWrites.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

enum {
    frameHeaderBytes = 24,
    // The most bytes held: the default VFS writes at most 0x1ffff bytes in
    // one call (it masks larger counts), so more go as several writes.
    heldLimit = 0x1ffff,
};

typedef struct {
    sqlite3_file base;
    // The default VFS's file, in the bytes right after this struct.
    sqlite3_file *real;
    // heldLimit bytes, allocated at the first write (see hasRoom).
    unsigned char *held;
    int heldCount;
    sqlite3_int64 heldOffset;
    // The last write was the header of a commit frame: the next is its page.
    int commitFrameBegun;
} LogFile;

static sqlite3_vfs *defaultVFS;
static sqlite3_vfs logWritesVFS;
static const sqlite3_io_methods logMethods;

static int passOn(LogFile *file) {
    if (file->heldCount == 0) return SQLITE_OK;
    int status = file->real->pMethods->xWrite(file->real, file->held, file->heldCount, file->heldOffset);
    file->heldCount = 0;
    file->commitFrameBegun = 0;
    return status;
}

/// Whether `more` bytes fit beside those held; allocates the buffer at the
/// log's first write (readers' logs are never written and never have one).
static int hasRoom(LogFile *file, int more) {
    if (file->held == NULL) file->held = malloc(heldLimit);
    return file->held != NULL && file->heldCount + more <= heldLimit;
}

static int isCommitFrameHeader(const unsigned char *bytes, int count) {
    // Bytes 4–7: the database's size in pages after the commit; 0 in other frames.
    return count == frameHeaderBytes && (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
}

static int logWrite(sqlite3_file *base, const void *bytes, int count, sqlite3_int64 offset) {
    LogFile *file = (LogFile *)base;
    // Decided before anything held is passed on, which forgets the header.
    int endsCommit = file->commitFrameBegun && count != frameHeaderBytes;
    int beginsCommit = isCommitFrameHeader(bytes, count);
    int continuesHeld = file->heldCount > 0 && offset == file->heldOffset + file->heldCount;
    if (file->heldCount > 0 && !continuesHeld) {
        int status = passOn(file);
        if (status != SQLITE_OK) return status;
    }
    // A commit frame's header is held only behind the frames before it. Alone
    // it may be a header rewritten in place (SQLite does so with checksums
    // after a transaction that spilled), which no page follows to pass it on.
    if (beginsCommit && !continuesHeld) {
        int status = file->real->pMethods->xWrite(file->real, bytes, count, offset);
        file->commitFrameBegun = status == SQLITE_OK;
        return status;
    }
    if (!hasRoom(file, count)) {
        int status = passOn(file);
        if (status != SQLITE_OK) return status;
        if (!hasRoom(file, count)) return file->real->pMethods->xWrite(file->real, bytes, count, offset);
    }
    if (file->heldCount == 0) file->heldOffset = offset;
    memcpy(file->held + file->heldCount, bytes, (size_t)count);
    file->heldCount += count;
    file->commitFrameBegun = beginsCommit;
    return endsCommit ? passOn(file) : SQLITE_OK;
}

static int logClose(sqlite3_file *base) {
    LogFile *file = (LogFile *)base;
    int passed = passOn(file);
    int closed = file->real->pMethods->xClose(file->real);
    free(file->held);
    file->held = NULL;
    return passed != SQLITE_OK ? passed : closed;
}

static int logRead(sqlite3_file *base, void *bytes, int count, sqlite3_int64 offset) {
    LogFile *file = (LogFile *)base;
    int status = passOn(file);
    return status != SQLITE_OK ? status : file->real->pMethods->xRead(file->real, bytes, count, offset);
}

static int logTruncate(sqlite3_file *base, sqlite3_int64 size) {
    LogFile *file = (LogFile *)base;
    int status = passOn(file);
    return status != SQLITE_OK ? status : file->real->pMethods->xTruncate(file->real, size);
}

static int logSync(sqlite3_file *base, int flags) {
    LogFile *file = (LogFile *)base;
    int status = passOn(file);
    return status != SQLITE_OK ? status : file->real->pMethods->xSync(file->real, flags);
}

static int logFileSize(sqlite3_file *base, sqlite3_int64 *size) {
    LogFile *file = (LogFile *)base;
    int status = passOn(file);
    return status != SQLITE_OK ? status : file->real->pMethods->xFileSize(file->real, size);
}

static int logLock(sqlite3_file *base, int level) {
    LogFile *file = (LogFile *)base;
    return file->real->pMethods->xLock(file->real, level);
}

static int logUnlock(sqlite3_file *base, int level) {
    LogFile *file = (LogFile *)base;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int logCheckReservedLock(sqlite3_file *base, int *reserved) {
    LogFile *file = (LogFile *)base;
    return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static int logFileControl(sqlite3_file *base, int operation, void *argument) {
    LogFile *file = (LogFile *)base;
    int status = passOn(file);
    return status != SQLITE_OK ? status : file->real->pMethods->xFileControl(file->real, operation, argument);
}

static int logSectorSize(sqlite3_file *base) {
    LogFile *file = (LogFile *)base;
    return file->real->pMethods->xSectorSize(file->real);
}

static int logDeviceCharacteristics(sqlite3_file *base) {
    LogFile *file = (LogFile *)base;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

// Version 1: a log is never mapped into memory and holds no shared-memory locks.
static const sqlite3_io_methods logMethods = {
    .iVersion = 1,
    .xClose = logClose,
    .xRead = logRead,
    .xWrite = logWrite,
    .xTruncate = logTruncate,
    .xSync = logSync,
    .xFileSize = logFileSize,
    .xLock = logLock,
    .xUnlock = logUnlock,
    .xCheckReservedLock = logCheckReservedLock,
    .xFileControl = logFileControl,
    .xSectorSize = logSectorSize,
    .xDeviceCharacteristics = logDeviceCharacteristics,
};

/// Databases and every other file open as the default VFS opens them; a
/// write-ahead log opens inside a `LogFile`.
static int logWritesOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    (void)vfs;
    if ((flags & SQLITE_OPEN_WAL) == 0) return defaultVFS->xOpen(defaultVFS, name, base, flags, outFlags);
    LogFile *file = (LogFile *)base;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    int status = defaultVFS->xOpen(defaultVFS, name, file->real, flags, outFlags);
    // Without methods SQLite will not close what did not open.
    file->base.pMethods = status == SQLITE_OK ? &logMethods : NULL;
    return status;
}

static const char *registeredName;

static void registerLogWrites(void) {
    defaultVFS = sqlite3_vfs_find(NULL);
    if (defaultVFS == NULL) return;
    // The default VFS's own methods serve for everything but opening; they
    // are given this struct, a copy of the default's with its data.
    logWritesVFS = *defaultVFS;
    logWritesVFS.pNext = NULL;
    logWritesVFS.zName = "tailor-log-writes";
    logWritesVFS.szOsFile = (int)sizeof(LogFile) + defaultVFS->szOsFile;
    logWritesVFS.xOpen = logWritesOpen;
    if (sqlite3_vfs_register(&logWritesVFS, 0) == SQLITE_OK) registeredName = logWritesVFS.zName;
}

const char *tailor_sqlite_log_writes_vfs(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, registerLogWrites);
    return registeredName;
}
