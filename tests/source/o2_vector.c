/* -O2: double and float locals and arguments live in vector registers (xmm); values in outer
   frames, inlined calls and entry values of floating-point parameters. */
#include <stdlib.h>

volatile double dsink;
volatile int isink;

static inline double sq(double x)
{
    double r = x * x;
    dsink = r;
    return r;
}

__attribute__((noinline)) double norm2(const double *v, int n, double scale)
{
    double acc = 0.0;
    for (int i = 0; i < n; i++) {
        double t = v[i] * scale;
        acc += sq(t);
    }
    dsink = acc;
    return acc;
}

__attribute__((noinline)) float axpyf(float a, float x, float y)
{
    float r = a * x + y;
    dsink = r;
    return r;
}

__attribute__((noinline)) int leafy(int sten, double w)
{
    dsink = w * sten;
    isink = sten;
    return sten * 2;
}

__attribute__((noinline)) int tailer(int k, double w)
{
    isink = k;
    return leafy(k + 1, w * 0.5);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    double v[8];
    for (int i = 0; i < 8; i++)
        v[i] = i * 0.5 + 1;
    double r = norm2(v, n, 1.5);
    float f = axpyf(2.0f, (float)r, 0.25f);
    int t = tailer(n, r);
    dsink = r + f + t;
    return 0;
}
