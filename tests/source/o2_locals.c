/* -O2: locals and arguments that live in registers, are folded away, or are dead. */
#include <stdlib.h>

volatile long sink;

struct pair {
    long a, b;
};

__attribute__((noinline)) static long mix(long x, long unused, struct pair p)
{
    long dead = x * 7;
    long kept = x + p.a;
    sink = kept;
    for (int i = 0; i < 3; i++) {
        long step = kept * i;
        sink += step;
    }
    kept += p.b;
    sink = kept;
    return kept;
}

__attribute__((noinline)) static long outer(int n)
{
    struct pair p = {n, 2L * n};
    long r = mix(n, 99, p);
    sink = r;
    return r + 1;
}

int main(int argc, char **argv)
{
    long v = outer(argc > 1 ? atoi(argv[1]) : 4);
    sink = v;
    return 0;
}
