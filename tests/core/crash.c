#include <stdio.h>
#include <string.h>

struct point {
  int x, y;
  const char *name;
};

int counter = 42;
double ratios[4] = {0.5, 1.5, 2.5, 3.5};
static char banner[32] = "core file test";

static int fill(struct point *p, int depth)
{
  int local = depth * 10;
  int *bad = NULL;
  if (depth == 0) {
    p->x = local + 1;
    *bad = p->x; /* crashes here */
  }
  return fill(p, depth - 1) + local;
}

int main(void)
{
  struct point pt = {3, 4, "origin"};
  int values[5] = {1, 2, 3, 4, 5};
  counter += values[2];
  printf("%s %d\n", banner, counter);
  fflush(stdout);
  return fill(&pt, 2);
}
