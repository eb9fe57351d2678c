// An inferior call made while the program is stopped in a thread other than main: the
// call runs on that thread (its stack, its thread-local variables); main stays blocked.
#include <pthread.h>
#include <cstdio>

static thread_local int tl = 1;
static pthread_barrier_t gate;

struct Acc {
    int base;
    int add(int x) const { return base + x + tl; }
};

static int twice(int x) { return 2 * x + tl; }

static void *worker(void *arg)
{
    tl = 40;
    Acc a{*(int *)arg};
    int r = a.add(1) + twice(2);
    std::printf("%d\n", r);
    return nullptr;
}

int main()
{
    int base = 100;
    pthread_t t;
    pthread_create(&t, nullptr, worker, &base);
    pthread_join(t, nullptr);
    return 0;
}
