/* Displays tied to the block of their locals (gdb's innermost_block_tracker). */
#include <stdio.h>

int g = 1;

int rec(int n) {
  static int calls;
  int m = n * 10;
  calls++;
  if (n > 0) {
    int inner = n + 100;
    g += inner;
  }
  if (n <= 0)
    return 0;
  return m + rec(n - 1);
}

int leaf(int x) {
  int y = x * 2;
  g += y;
  return y;
}

int other(int a) {
  int x = a + 1;
  return leaf(x);
}

int main(void) {
  int x = 3;
  int r = leaf(x);
  r += other(r);
  r += rec(2);
  printf("%d\n", r);
  return 0;
}
