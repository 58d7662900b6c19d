// The measurement behind "io_uring for fan-out: tried, not kept" in docs/PERFORMANCE.md.
// One event written to N loopback TCP sockets: a send() per socket against
// one io_uring submission of all N sends, in alternating passes; prints the
// sender thread's CPU per send. Not part of the server or its build; needs Debian's liburing-dev:
//
//   cc -O2 -o /tmp/fanout-io-uring scripts/experiments/fanout-io-uring.c -luring
//   ulimit -n 20000 && /tmp/fanout-io-uring 2000 20 && /tmp/fanout-io-uring 8000 5
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double cpu_us(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static double wall_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000, rounds = argc > 2 ? atoi(argv[2]) : 20, size = 300;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    bind(listener, (void *)&addr, sizeof addr); listen(listener, 4096);
    socklen_t len = sizeof addr; getsockname(listener, (void *)&addr, &len);
    int *clients = calloc(n, sizeof(int)), *servers = calloc(n, sizeof(int));
    for (int i = 0; i < n; i++) {
        clients[i] = socket(AF_INET, SOCK_STREAM, 0);
        int big = 1 << 20; setsockopt(clients[i], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
        if (connect(clients[i], (void *)&addr, sizeof addr) != 0) { perror("connect"); return 1; }
        servers[i] = accept(listener, NULL, NULL);
        int one = 1; setsockopt(servers[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    char event[300]; memset(event, 'x', size);
    struct io_uring ring; io_uring_queue_init(4096, &ring, 0);
    char drain[1 << 16];
    for (int pass = 0; pass < 6; pass++) {
        int uring = pass % 2;
        double c0 = cpu_us(), w0 = wall_us();
        for (int r = 0; r < rounds; r++) {
            if (!uring) {
                for (int i = 0; i < n; i++) if (send(servers[i], event, size, MSG_NOSIGNAL) != size) { perror("send"); return 1; }
            } else {
                for (int start = 0; start < n; start += 4096) {
                    int count = n - start < 4096 ? n - start : 4096;
                    for (int i = start; i < start + count; i++) {
                        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
                        io_uring_prep_send(sqe, servers[i], event, size, MSG_NOSIGNAL);
                    }
                    io_uring_submit_and_wait(&ring, count);
                    struct io_uring_cqe *cqe; unsigned head, seen = 0;
                    io_uring_for_each_cqe(&ring, head, cqe) { if (cqe->res != size) { fprintf(stderr, "res %d\n", cqe->res); return 1; } seen++; }
                    io_uring_cq_advance(&ring, seen);
                    if ((int)seen != count) { fprintf(stderr, "seen %u of %d\n", seen, count); return 1; }
                }
            }
        }
        double c = cpu_us() - c0, w = wall_us() - w0;
        printf("%-9s %d sockets × %d rounds: %.3f µs CPU per send, %.3f µs wall\n", uring ? "io_uring" : "send()", n, rounds, c / (n * rounds), w / (n * rounds));
        for (int i = 0; i < n; i++) while (recv(clients[i], drain, sizeof drain, MSG_DONTWAIT) > 0) {}
    }
    return 0;
}
