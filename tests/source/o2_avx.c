/* -O2: a 32-byte vector (__m256d) kept in a ymm register (DWARF names it by its xmm number);
   the function runs only where the processor has AVX2. */
#include <immintrin.h>
#include <stdlib.h>

volatile double dsink;

__attribute__((noinline, target("avx2"))) double hsum(__m256d v, double s)
{
    __m256d w = _mm256_mul_pd(v, _mm256_set1_pd(s));
    double out[4];
    _mm256_storeu_pd(out, w);
    dsink = out[0];
    return out[0] + out[1] + out[2] + out[3];
}

__attribute__((target("avx2"))) static double run_avx(double a)
{
    __m256d v = _mm256_set_pd(a, a + 1, a + 2, a + 3);
    return hsum(v, 2.0);
}

int main(int argc, char **argv)
{
    double a = argc > 1 ? atof(argv[1]) : 1.0;
    if (__builtin_cpu_supports("avx2"))
        dsink = run_avx(a);
    return 0;
}
