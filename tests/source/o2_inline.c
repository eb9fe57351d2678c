/* -O2: small static functions are inlined; breakpoints and backtraces see inline frames. */
#include <stdlib.h>

volatile int sink;
volatile int clamped;

static inline int clamp(int v, int lo, int hi)
{
    if (v < lo) {
        clamped = v;
        return lo;
    }
    if (v > hi) {
        clamped = v;
        return hi;
    }
    return v;
}

static inline int scale_clamped(int v, int factor)
{
    int s = v * factor;
    sink = s;
    return clamp(s, -50, 50);
}

__attribute__((noinline)) static int process(int n, int factor)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += scale_clamped(i - 2, factor);
    return total;
}

int main(int argc, char **argv)
{
    int factor = argc > 1 ? atoi(argv[1]) : 3;
    int r = process(argc + 3, factor);
    sink = r;
    return 0;
}
