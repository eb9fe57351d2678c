/* Thread-local variables: each thread sees its own copy. */
#include <pthread.h>

__thread int tls_counter = 5;
__thread const char *tls_name = "main";
static __thread double tls_scale = 1.5;
int shared_total;

static void note(int v)
{
    tls_counter += v;
    shared_total += tls_counter;
}

static void *worker(void *arg)
{
    tls_name = "worker";
    tls_scale = 3.0;
    note((int)(long)arg);
    return NULL;
}

int main(void)
{
    pthread_t t;
    note(1);
    pthread_create(&t, NULL, worker, (void *)100L);
    pthread_join(t, NULL);
    note(2);
    return shared_total + tls_counter == 0;
}
