#define _GNU_SOURCE
#include "CSystem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int csystem_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int csystem_epoll_add(int epfd, int fd, uint64_t key, int options) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    if (options & CSYSTEM_WATCH_EDGE) event.events |= EPOLLET;
    if (options & CSYSTEM_WATCH_WRITES) event.events |= EPOLLOUT;
    // The kernel refuses EPOLLRDHUP beside EPOLLEXCLUSIVE; a listener needs neither.
    if (options & CSYSTEM_WATCH_EXCLUSIVE) event.events |= EPOLLEXCLUSIVE;
    else event.events |= EPOLLRDHUP;
    event.data.u64 = key;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int csystem_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }

int csystem_epoll_wait(int epfd, csystem_ready_event *events, int capacity, int timeout_ms) {
    struct epoll_event raw[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, raw, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i].key = raw[i].data.u64;
        events[i].flags = raw[i].events;
    }
    return count;
}

int csystem_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int csystem_eventfd_signal(int fd) {
    uint64_t one = 1;
    return (int)write(fd, &one, sizeof one);
}

int csystem_eventfd_drain(int fd) {
    uint64_t value;
    return (int)read(fd, &value, sizeof value);
}

int csystem_listen_tcp(const char *host, int port, int backlog, int reuse_port, int *bound_port) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    int status = getaddrinfo(host, service, &hints, &found);
    if (status != 0) {
        errno = EADDRNOTAVAIL;
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *address = found; address != NULL; address = address->ai_next) {
        fd = socket(address->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
        // Answers leave at once, not after Nagle's wait for an acknowledgement.
        // Set here, every accepted socket inherits it (Linux copies it to the
        // connection): no call per connection.
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (bind(fd, address->ai_addr, address->ai_addrlen) == 0 && listen(fd, backlog) == 0) break;
        int saved = errno;
        close(fd);
        errno = saved;
        fd = -1;
    }
    freeaddrinfo(found);
    if (fd < 0) return -1;
    struct sockaddr_storage bound;
    socklen_t length = sizeof bound;
    if (getsockname(fd, (struct sockaddr *)&bound, &length) == 0) {
        if (bound.ss_family == AF_INET6) *bound_port = ntohs(((struct sockaddr_in6 *)&bound)->sin6_port);
        else *bound_port = ntohs(((struct sockaddr_in *)&bound)->sin_port);
    }
    return fd;
}

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24 /* Linux 4.2; not in every libc's headers */
#endif

/// Binds `fd` to `source` with port 0; the port is picked at connect, so that
/// the four-tuple, not the source port alone, has to be unique.
static int bind_source(int fd, const char *source) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    if (inet_pton(AF_INET, source, &address.sin_addr) != 1) {
        errno = EADDRNOTAVAIL;
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    return bind(fd, (struct sockaddr *)&address, sizeof address);
}

int csystem_connect_tcp(const char *host, int port, const char *source) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &found) != 0) {
        errno = EADDRNOTAVAIL;
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *address = found; address != NULL; address = address->ai_next) {
        fd = socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        if ((source == NULL || bind_source(fd, source) == 0) && connect(fd, address->ai_addr, address->ai_addrlen) == 0) break;
        int saved = errno;
        close(fd);
        errno = saved;
        fd = -1;
    }
    freeaddrinfo(found);
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

int csystem_accept(int listener, uint8_t peer[16]) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    int fd = accept4(listener, (struct sockaddr *)&address, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0 || peer == NULL) return fd;
    memset(peer, 0, 16);
    if (address.ss_family == AF_INET6) {
        memcpy(peer, &((struct sockaddr_in6 *)&address)->sin6_addr, 16);
    } else if (address.ss_family == AF_INET) {
        // As an IPv4-mapped IPv6 address, so that both families share one key.
        peer[10] = 0xff;
        peer[11] = 0xff;
        memcpy(peer + 12, &((struct sockaddr_in *)&address)->sin_addr, 4);
    }
    return fd;
}

int csystem_set_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

long csystem_raise_open_files_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    return (long)limit.rlim_cur;
}

int csystem_usable_cpu_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int count = CPU_COUNT(&set);
    return count > 0 ? count : 1;
}

void csystem_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

static sigset_t control_signals(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1);
    return set;
}

int csystem_block_control_signals(void) {
    sigset_t set = control_signals();
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int csystem_wait_control_signal(int *sender) {
    sigset_t set = control_signals();
    siginfo_t info;
    int received;
    while ((received = sigwaitinfo(&set, &info)) < 0) {}
    *sender = (info.si_code == SI_USER || info.si_code == SI_QUEUE) ? (int)info.si_pid : 0;
    return received;
}

int csystem_wait_for_signal(int number, double seconds) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, number);
    struct timespec timeout = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    int received;
    while ((received = sigtimedwait(&set, NULL, &timeout)) < 0 && errno == EINTR) {}
    return received == number;
}

int csystem_block_signal(int number) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, number);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

uint64_t csystem_monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

int csystem_errno(void) { return errno; }

void csystem_tune_allocator(void) {
    // Blocks of 128 KiB and more (large view models, request bodies) are mapped
    // on their own and given back to the system when freed. glibc's default
    // threshold grows with the largest block freed so far, after which such
    // blocks stay in the heap: after a burst of large events the process kept
    // gigabytes it no longer used.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    // A thread's heap is cut back only once 8 MiB at its top are free: cut
    // back at glibc's 128 KiB, a thread that frees view models at the rate
    // they change (the writer, dropping them from the cache) gave pages back
    // and took them again many times a second, each time with an madvise and
    // a TLB flush on every CPU. Memory upkeep still trims the heaps whole.
    mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
}

void csystem_release_free_memory(void) { malloc_trim(0); }

int csystem_set_thread_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    return pthread_setname_np(pthread_self(), shortened);
}
