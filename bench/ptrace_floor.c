/* The kernel's floor under a parallel `next` (docs/BENCHMARKS.md, "Closer to the kernel's
 * floor"): the system calls cohort's agent makes per rank and step, and nothing else.
 *
 *   cc -O2 -pthread -o target/bench/ptrace_floor bench/ptrace_floor.c
 *   target/bench/ptrace_floor N T MODE
 *
 * N tracees (forked, each spinning in a loop) are split over T tracer threads; each thread
 * forks and traces its own. One "step of all" resumes every tracee once and waits until all
 * have stopped again:
 *   int3  write a breakpoint (pwrite to /proc/PID/mem), PTRACE_CONT, and at the stop
 *         PTRACE_GETREGS, move the pc back (PTRACE_POKEUSER), remove the breakpoint: what
 *         cohort does per rank for a one-line `next`;
 *   hw    the same with a hardware breakpoint (x86-64 debug register DR0, one POKEUSER per
 *         step) instead of the breakpoint writes;
 *   step  PTRACE_SINGLESTEP and PTRACE_GETREGS.
 * Prints the time of one step of all and per tracee. Run as root or with ptrace allowed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int N = 64, T = 2, K;
static const char *MODE = "int3";
static pthread_barrier_t bar;
static double t_start, t_end;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The tracees stop at the first instruction of this loop, again and again. */
__attribute__((noinline)) static void spin(void) {
    for (;;)
        __asm__ volatile("nop\n nop\n nop");
}

static void *tracer(void *arg) {
    long id = (long)arg;
    int n = N / T + (id < N % T);
    pid_t *kids = calloc(n, sizeof *kids);
    int *fds = calloc(n, sizeof *fds);
    unsigned long a = (unsigned long)spin, dr0 = offsetof(struct user, u_debugreg);
    unsigned long rip = offsetof(struct user_regs_struct, rip);
    struct user_regs_struct r;
    int st;
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            ptrace(PTRACE_TRACEME, 0, 0, 0);
            raise(SIGSTOP);
            spin();
        }
        kids[i] = p;
        waitpid(p, &st, __WALL);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/mem", p);
        fds[i] = open(path, O_RDWR);
        ptrace(PTRACE_GETREGS, p, 0, &r);
        r.rip = a;
        ptrace(PTRACE_SETREGS, p, 0, &r);
        if (!strcmp(MODE, "hw")) {
            /* DR0 at the loop's first instruction, DR7 enabling it (execute, 1 byte). */
            ptrace(PTRACE_POKEUSER, p, dr0, a);
            ptrace(PTRACE_POKEUSER, p, dr0 + 7 * 8, 1UL);
        }
    }
    unsigned char orig, trap = 0xcc;
    pread(fds[0], &orig, 1, a);
    pthread_barrier_wait(&bar);
    if (id == 0)
        t_start = now();
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < n; i++) {
            if (!strcmp(MODE, "step")) {
                ptrace(PTRACE_SINGLESTEP, kids[i], 0, 0);
                continue;
            }
            if (!strcmp(MODE, "int3"))
                pwrite(fds[i], &trap, 1, a);
            else
                ptrace(PTRACE_POKEUSER, kids[i], dr0, a);
            ptrace(PTRACE_CONT, kids[i], 0, 0);
        }
        for (int i = 0; i < n; i++) {
            pid_t p = waitpid(-1, &st, __WALL | __WNOTHREAD);
            ptrace(PTRACE_GETREGS, p, 0, &r);
            if (!strcmp(MODE, "int3")) {
                int j = 0;
                while (kids[j] != p)
                    j++;
                ptrace(PTRACE_POKEUSER, p, rip, a);
                pwrite(fds[j], &orig, 1, a);
            }
        }
    }
    pthread_barrier_wait(&bar);
    if (id == 0)
        t_end = now();
    for (int i = 0; i < n; i++)
        kill(kids[i], SIGKILL);
    while (waitpid(-1, &st, __WALL | __WNOTHREAD) > 0)
        ;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1)
        N = atoi(argv[1]);
    if (argc > 2)
        T = atoi(argv[2]);
    if (argc > 3)
        MODE = argv[3];
    if (N < 1 || T < 1 || T > N || T > 256) {
        fprintf(stderr, "usage: %s N T [int3|hw|step]\n", argv[0]);
        return 2;
    }
    K = 100000 / N + 10;
    pthread_t th[256];
    pthread_barrier_init(&bar, NULL, T);
    for (long i = 0; i < T; i++)
        pthread_create(&th[i], NULL, tracer, (void *)i);
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    double per = (t_end - t_start) / K;
    printf("N=%d T=%d %s: %.1f us per step of all, %.2f us per tracee\n", N, T, MODE, per * 1e6,
           per / N * 1e6);
    return 0;
}
