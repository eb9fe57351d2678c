/* The bundled example for `cohort`'s first run: a loop, a few threads, a fault. */
#include <pthread.h>
#include <stdio.h>

volatile long counter;

__attribute__((noinline)) void bump(int by) { counter += by; }

static void *worker(void *arg) {
    for (int i = 0; i < 3; i++)
        bump((int)(long)arg);
    return NULL;
}

int main(void) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("counter=%ld\n", counter);
    volatile int *bad = (int *)0;
    *bad = (int)counter; /* SIGSEGV on purpose */
    return 0;
}
