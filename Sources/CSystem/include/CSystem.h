#ifndef CSYSTEM_H
#define CSYSTEM_H

// The Linux calls the socket loop needs, wrapped where Swift's Glibc import is
// awkward: `epoll_event` is a packed struct, `accept4` needs _GNU_SOURCE, and
// the socket type flags are imported as an enum.

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/// A readiness report: the fd's registration key and its epoll flags.
typedef struct {
    uint64_t key;
    uint32_t flags;
} csystem_ready_event;

enum {
    CSYSTEM_READABLE = 0x001,   // EPOLLIN
    CSYSTEM_WRITABLE = 0x004,   // EPOLLOUT
    CSYSTEM_ERROR = 0x008,      // EPOLLERR
    CSYSTEM_HANGUP = 0x010,     // EPOLLHUP
    CSYSTEM_PEER_CLOSED = 0x2000, // EPOLLRDHUP
};

int csystem_epoll_create(void);
enum {
    CSYSTEM_WATCH_EDGE = 1,      // edge-triggered: report each change once
    CSYSTEM_WATCH_WRITES = 2,    // report writability too
    CSYSTEM_WATCH_EXCLUSIVE = 4, // wake one of the loops sharing this fd, not all
};

/// Adds `fd` for readability (and what `options` asks) under `key`.
int csystem_epoll_add(int epfd, int fd, uint64_t key, int options);
int csystem_epoll_remove(int epfd, int fd);
/// Waits for at most `capacity` events; returns their count, or -1 with errno.
int csystem_epoll_wait(int epfd, csystem_ready_event *events, int capacity, int timeout_ms);

int csystem_eventfd(void);
/// Names the calling thread (the first 15 bytes), as ps and /proc show it.
int csystem_set_thread_name(const char *name);
int csystem_eventfd_signal(int fd);
int csystem_eventfd_drain(int fd);

/// A non-blocking, close-on-exec TCP socket listening on host:port.
/// Returns the fd and writes the bound port to `bound_port`, or -1 with errno.
int csystem_listen_tcp(const char *host, int port, int backlog, int reuse_port, int *bound_port);
/// A TCP connection to host:port (blocking connect, then non-blocking), or -1 with errno.
/// A non-NULL `source` is the IPv4 address to connect from: each of 127.0.0.1,
/// 127.0.0.2, … has its own range of ephemeral ports.
int csystem_connect_tcp(const char *host, int port, const char *source);
/// Accepts one connection as non-blocking and close-on-exec; -1 with errno.
/// A non-NULL `peer` receives the client's address as 16 bytes (IPv4 mapped
/// into IPv6), in the same call.
int csystem_accept(int listener, uint8_t peer[16]);
int csystem_set_nodelay(int fd);

/// Raises the soft limit of open files to the hard limit; returns the new limit.
long csystem_raise_open_files_limit(void);
/// How many CPUs this process may run on (taskset narrows it).
int csystem_usable_cpu_count(void);
void csystem_ignore_sigpipe(void);
/// Blocks SIGINT, SIGTERM, SIGHUP and SIGUSR1 in the calling thread and the threads it starts later.
int csystem_block_control_signals(void);
/// Waits for SIGINT, SIGTERM, SIGHUP or SIGUSR1 (blocked beforehand) and
/// returns its number; `sender` gets the process that sent it (0: the kernel).
int csystem_wait_control_signal(int *sender);
/// Blocks signal `number` in the calling thread and the threads it starts later.
int csystem_block_signal(int number);
/// Waits at most `seconds` for signal `number` (blocked beforehand): 1 when it came.
int csystem_wait_for_signal(int number, double seconds);

/// Sets the allocator so that large freed blocks go back to the system.
void csystem_tune_allocator(void);
/// Gives the free memory at the heaps' tops back to the system.
void csystem_release_free_memory(void);

uint64_t csystem_monotonic_nanoseconds(void);
int csystem_errno(void);

#endif
