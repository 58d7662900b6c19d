// Counts a process's heap allocations, for the allocation budgets of the
// tests: loaded into a server with LD_PRELOAD, it takes malloc and its kin,
// counts each call and hands it on to glibc. The count lives in a file that
// TAILOR_ALLOCATION_COUNT_FILE names, mapped shared, so the test reads it from
// outside while the server runs. Never linked into the server itself.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

// Until the file is mapped (allocations before the constructor ran), counted here.
static _Atomic uint64_t early;
static _Atomic uint64_t *count = &early;

__attribute__((constructor)) static void map_count_file(void) {
    const char *path = getenv("TAILOR_ALLOCATION_COUNT_FILE");
    if (path == NULL) return;
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, sizeof(uint64_t)) == 0) {
        void *shared = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (shared != MAP_FAILED) count = shared;
    }
    close(fd);
}

static inline void counted(void) { atomic_fetch_add_explicit(count, 1, memory_order_relaxed); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { counted(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { counted(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    counted();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
