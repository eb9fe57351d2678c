/* Named threads; when worker 3 reaches report(), every other thread is provably blocked in
 * read() on a pipe (worker 3 waits until /proc says they sleep), so all-stop views are
 * deterministic. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NWORKERS 3

static int gate[2];
static volatile pid_t tids[NWORKERS + 1];
static int results[NWORKERS + 1];

static int asleep(pid_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'S';
}

static void wait_gate(int id)
{
    char c;
    tids[id] = gettid();
    if (read(gate[0], &c, 1) != 1)
        results[id] = -1;
}

static int report(int id, int total)
{
    results[id] = total;
    return total * 2;
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    char name[16];
    snprintf(name, sizeof name, "worker-%d", id);
    pthread_setname_np(pthread_self(), name);
    if (id < NWORKERS) {
        wait_gate(id);
        results[id] += id * 10;
        return NULL;
    }
    for (int i = 0; i < NWORKERS; i++)
        while (!tids[i] || !asleep(tids[i]))
            usleep(1000);
    report(id, 42);
    if (write(gate[1], "xxx", NWORKERS) != NWORKERS)
        results[id] = -1;
    return NULL;
}

int main(void)
{
    pthread_t t[NWORKERS];
    if (pipe(gate) != 0)
        return 1;
    for (long i = 0; i < NWORKERS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    wait_gate(0);
    for (int i = 0; i < NWORKERS; i++)
        pthread_join(t[i], NULL);
    /* Let the debugger report the last thread's exit before this line is printed: the two
       share the terminal, and gdb's "[Thread ... exited]" may otherwise split it. */
    usleep(200000);
    printf("%d %d %d %d\n", results[0], results[1], results[2], results[3]);
    return 0;
}
