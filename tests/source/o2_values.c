/* -O2: values returned in registers, a watched global, and a loop kept in registers. */
#include <stdlib.h>

struct span {
    int lo, hi;
};

int progress;

__attribute__((noinline)) struct span widen(struct span s, int by)
{
    struct span w = {s.lo - by, s.hi + by};
    return w;
}

__attribute__((noinline)) double average(const int *v, int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++) {
        sum += v[i];
        progress = i;
    }
    return (double)sum / n;
}

int main(int argc, char **argv)
{
    int data[4] = {3, 5, 8, 13};
    int by = argc > 1 ? atoi(argv[1]) : 1;
    struct span s = widen((struct span){1, 2}, by);
    double avg = average(data, 4);
    return (int)avg + s.lo + s.hi - 100;
}
