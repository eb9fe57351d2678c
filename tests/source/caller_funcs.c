/* Frames for gdb's $_caller_is / $_caller_matches / $_any_caller_is / $_any_caller_matches
   and values for $_as_string. */
#include <stdio.h>

enum color { RED, GREEN, BLUE };
struct point { int x, y; };

static int inner(int n)
{
  enum color c = GREEN;
  struct point p = { n, 2 * n };
  double d = 2.5;
  const char *s = "hi";
  return p.x + p.y + (int) c + (int) d + s[0];
}

static int outer(int n)
{
  return inner(n + 1);
}

int main(void)
{
  int r = outer(1);
  printf("%d\n", r);
  return 0;
}
