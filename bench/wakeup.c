/* What a wake-up costs on this machine (docs/BENCHMARKS.md, "Where the fixed part of a step
 * goes"): two threads pass a byte back and forth through two pipes, with a pause between round
 * trips so that the waiting thread's CPU goes idle, as it does between the hops of a debugger
 * command (driver, front end, agent, tracer thread and back).
 *
 *   cc -O2 -pthread -o target/bench/wakeup bench/wakeup.c && target/bench/wakeup
 *
 * Prints the median round trip (two wake-ups) with both threads free to move, both on CPU 0,
 * and one on CPU 0 and one on CPU 1. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int to_peer[2], to_main[2];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *peer(void *arg) {
    (void)arg;
    char c;
    while (read(to_peer[0], &c, 1) == 1)
        if (write(to_main[1], &c, 1) != 1)
            break;
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void pin(pthread_t t, int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(t, sizeof s, &s);
}

static void unpin(pthread_t t) {
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, &s);
    pthread_setaffinity_np(t, sizeof s, &s);
}

int main(void) {
    enum { N = 3000 };
    static double d[N];
    const char *names[] = {"free to move", "both on CPU 0", "CPU 0 and CPU 1"};
    if (pipe(to_peer) || pipe(to_main))
        return 1;
    pthread_t t;
    pthread_create(&t, NULL, peer, NULL);
    for (int mode = 0; mode < 3; mode++) {
        if (mode == 0) {
            unpin(pthread_self());
            unpin(t);
        } else {
            pin(pthread_self(), 0);
            pin(t, mode == 1 ? 0 : 1);
        }
        char c = 'x';
        for (int i = 0; i < N; i++) {
            double t0 = now();
            if (write(to_peer[1], &c, 1) != 1 || read(to_main[0], &c, 1) != 1)
                return 1;
            d[i] = now() - t0;
            usleep(200);
        }
        qsort(d, N, sizeof d[0], cmp);
        printf("%-16s round trip (two wake-ups): median %.1f us\n", names[mode], d[N / 2] * 1e6);
    }
    return 0;
}
