/* -O2 stepping: next and step through loops with inlined helpers, out of inlined calls, and
   back into a caller at a line-table row that is not a statement. */

#include <stdlib.h>

volatile double dsink;

static inline double sq(double x)
{
    double r = x * x;
    dsink = r;
    return r;
}

static inline double dot3(const double *a, const double *b)
{
    double s = 0;
    for (int k = 0; k < 3; k++)
        s += a[k] * b[k];
    dsink = s;
    return s;
}

__attribute__((noinline)) double energy(const double *v, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; i++)
        e += sq(v[i]);
    return e;
}

__attribute__((noinline)) double kinetic(const double *p, const double *q, double m)
{
    double d = dot3(p, q);
    double s = sq(m) + d;
    return s * 0.5;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    double v[4] = {1.0, 2.0, 3.0, 4.0};
    double p[3] = {1, 2, 3}, q[3] = {4, 5, 6};
    double e = energy(v, n);
    double k = kinetic(p, q, e);
    dsink = e + k;
    return 0;
}
