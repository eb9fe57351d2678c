/* step, next and finish through a small call chain, started with `start`. */
#include <string.h>

struct point {
    int x, y;
};

static int square(int v)
{
    return v * v;
}

static int norm2(struct point p)
{
    int a = square(p.x);
    int b = square(p.y);
    return a + b;
}

static int sum_norms(const struct point *ps, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += norm2(ps[i]);
    return s;
}

int main(int argc, char **argv)
{
    struct point ps[3] = {{1, 2}, {3, 4}, {5, 6}};
    int n = argc > 1 ? (int)strlen(argv[1]) : 3;
    int s = sum_norms(ps, n);
    int q = square(s);
    return q == 0;
}
