/* -O2: structs passed in pieces of vector registers (xmm0:xmm1), a complex, long doubles, a
   struct kept in registers across an inlined call. */
#include <stdlib.h>
#include <complex.h>

volatile double dsink;

struct vec2 { double x, y; };
struct pt { float x, y, z, w; };

__attribute__((noinline)) double len2(struct vec2 v)
{
    double r = v.x * v.x + v.y * v.y;
    dsink = r;
    return r;
}

__attribute__((noinline)) float ptsum(struct pt p)
{
    float s = p.x + p.y + p.z + p.w;
    dsink = s;
    return s;
}

__attribute__((noinline)) double cabs2(double complex z)
{
    double r = creal(z) * creal(z) + cimag(z) * cimag(z);
    dsink = r;
    return r;
}

__attribute__((noinline)) long double ld(long double a, long double b)
{
    long double c = a * b + 1;
    dsink = (double)c;
    return c;
}

static inline struct vec2 add(struct vec2 a, struct vec2 b)
{
    struct vec2 r = {a.x + b.x, a.y + b.y};
    dsink = r.x;
    return r;
}

__attribute__((noinline)) double combine(int n)
{
    struct vec2 acc = {0, 0};
    for (int i = 0; i < n; i++) {
        struct vec2 d = {i * 0.5, i * 1.5};
        acc = add(acc, d);
    }
    dsink = acc.y;
    return acc.x + acc.y;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;
    struct vec2 v = {n * 1.0, 2.5};
    struct pt p = {1, 2, 3, (float)n};
    double a = len2(v);
    float b = ptsum(p);
    double c = cabs2(n + 2.0 * I);
    long double d = ld(n, 1.5L);
    double e = combine(n);
    dsink = a + b + c + (double)d + e;
    return 0;
}
