/* 100 threads, all alive at once (a barrier holds them until the last one is created). */
#include <pthread.h>
#include <unistd.h>
#include <stdio.h>

#define NTHREADS 100

static pthread_barrier_t all_started;
static long totals[NTHREADS];

static void tally(int id, long value)
{
    totals[id] = value;
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    pthread_barrier_wait(&all_started);
    long v = 0;
    for (int i = 0; i <= id; i++)
        v += i;
    tally(id, v);
    return NULL;
}

int main(void)
{
    pthread_t t[NTHREADS];
    pthread_barrier_init(&all_started, NULL, NTHREADS + 1);
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    pthread_barrier_wait(&all_started);
    long sum = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        sum += totals[i];
    }
    /* Let the debugger report the threads' exits before this line is printed (they share the
       terminal). */
    usleep(200000);
    printf("sum=%ld\n", sum);
    return 0;
}
