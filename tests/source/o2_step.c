/* -O2: step into and over inlined functions; finish out of an inlined frame. */
#include <stdlib.h>

volatile int sink;

static inline int add_checked(int a, int b)
{
    int s = a + b;
    if (s < a)
        sink = -1;
    sink = s;
    return s;
}

static inline int twice_checked(int v)
{
    int t = add_checked(v, v);
    sink = t + 1;
    return t;
}

__attribute__((noinline)) static int run(int n)
{
    int x = twice_checked(n);
    int y = add_checked(x, 3);
    sink = y;
    return x + y;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    int r = run(n);
    sink = r;
    return 0;
}
