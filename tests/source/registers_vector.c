/* SSE and x87 registers as values: at scale's entry its arguments are in xmm0 and xmm1. */
#include <stdio.h>

__attribute__((noinline)) static double scale(double a, double b)
{
  return a * b + 1.0;
}

int main(void)
{
  volatile double x = 2.5, y = -4.0;
  printf("%g\n", scale(x, y));
  return 0;
}
